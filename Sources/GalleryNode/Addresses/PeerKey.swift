import GalleryModel
import GalleryWire

/// The key the address book knows a peer by, taken from its authenticated session.
///
/// It is the peer's node ID (a digest of the static key its handshake proved): a name can be
/// claimed by anyone, a key cannot.
public struct PeerKey: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The key's text: a node ID.
    public var rawValue: String

    /// A key from its text (as the address book file and `addresses` frames carry it).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The key of an authenticated peer.
    init(_ peer: PeerIdentity) {
        self.init(peer.nodeID)
    }

    /// The one place that decides what identifies a node, for its peers and for itself: its
    /// node ID, the digest of the static key its handshake proves (protocol.md, "Identity"), never
    /// a name it claims.
    init(_ nodeID: NodeID) {
        self.init(rawValue: nodeID.description)
    }

    public var description: String { rawValue }

    public static func < (lhs: PeerKey, rhs: PeerKey) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

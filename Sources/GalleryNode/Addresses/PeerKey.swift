import GalleryModel
import GalleryWire

/// The key the address book knows a peer by, taken from its authenticated session.
///
/// Today it is the node name the peer reports in its handshake; once peers have static keys
/// (issue 14), it becomes the node ID, in `init(_:)` alone.
public struct PeerKey: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The key's text (a node name; later a node ID).
    public var rawValue: String

    /// A key from its text (as the address book file and `addresses` frames carry it).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The key of an authenticated peer.
    init(_ peer: PeerIdentity) {
        self.init(name: peer.name, replica: peer.replica)
    }

    /// The one place that decides what identifies a node, for its peers and for itself: its
    /// node name today (the node ID of issue 14 later).
    init(name: String, replica: ReplicaID) {
        self.init(rawValue: name)
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

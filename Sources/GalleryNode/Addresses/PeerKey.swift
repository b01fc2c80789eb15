import GalleryModel
import GalleryWire

/// The key the address book knows a peer by, taken from its authenticated session.
///
/// It is the peer's node ID (a digest of the static key its handshake proved): a name can be
/// claimed by anyone, a key cannot.
package struct PeerKey: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The key's text: a node ID.
    package var rawValue: String

    /// A key from its text (as the address book file and `addresses` frames carry it).
    package init(rawValue: String) {
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

    package var description: String { rawValue }

    package static func < (lhs: PeerKey, rhs: PeerKey) -> Bool { lhs.rawValue < rhs.rawValue }

    package init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

import GalleryModel
import GalleryWire

/// One connected peer as its node sees it.
public struct PeerStatus: Hashable, Sendable {
    /// Where the sync session stands.
    public enum State: String, Hashable, Sendable {
        /// Proving the secret.
        case handshaking
        /// Authenticated; catching up.
        case syncing
        /// The peer has sent all it had when the session started (`caught_up`), and ops flow live.
        case live
    }

    /// The peer's name, once authenticated.
    public var name: String?
    /// The peer's replica ID, once authenticated.
    public var replica: ReplicaID?
    /// The peer's node ID (a digest of the static key it proved), once authenticated: what names
    /// a peer (a replica ID changes with a new incarnation; a name is only what the peer says).
    public var nodeID: NodeID?
    /// The peer's address.
    public var address: String
    /// Whether this node dialed the peer ("outbound") or the peer dialed in ("inbound").
    public var direction: String
    public var state: State
    /// What the peer said it had sent this node in full (`caught_up`): "synced with P up to V".
    public var syncedUpTo: VersionVector?
    /// Bytes received from the peer on this connection.
    public var bytesReceived: Int
    /// Bytes sent to the peer on this connection.
    public var bytesSent: Int
    /// The link in the relay tree (protocol.md, section 11): `parent`, `child`, `eager` (a peer
    /// without beacons, on another root, or a former branch for a moment), `grafted` or `lazy`
    /// (ops pushed on all but the last, only announced there); nil before the handshake or with
    /// relay trees off.
    public var relay: String? = nil
}

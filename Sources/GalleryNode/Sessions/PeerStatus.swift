import GalleryModel
import GalleryWire

/// One connected peer as its node sees it.
package struct PeerStatus: Hashable, Sendable {
    /// Where the sync session stands.
    package enum State: String, Hashable, Sendable {
        /// Proving the secret.
        case handshaking
        /// Authenticated; catching up.
        case syncing
        /// The peer has sent all it had when the session started (`caught_up`), and ops flow live.
        case live
    }

    /// The peer's name, once authenticated.
    package var name: String?
    /// The peer's replica ID, once authenticated.
    package var replica: ReplicaID?
    /// The peer's node ID (a digest of the static key it proved), once authenticated: what names
    /// a peer (a replica ID changes with a new incarnation; a name is only what the peer says).
    package var nodeID: NodeID?
    /// The peer's address.
    package var address: String
    /// Whether this node dialed the peer ("outbound") or the peer dialed in ("inbound").
    package var direction: String
    package var state: State
    /// What the peer said it had sent this node in full (`caught_up`): "synced with P up to V".
    package var syncedUpTo: VersionVector?
    /// Bytes received from the peer on this connection.
    package var bytesReceived: Int
    /// Bytes sent to the peer on this connection.
    package var bytesSent: Int
    /// The link in the relay tree (protocol.md, section 11): `parent`, `child`, `eager` (a peer
    /// without beacons, on another root, or a former branch for a moment), `grafted` or `lazy`
    /// (ops pushed on all but the last, only announced there); nil before the handshake or with
    /// relay trees off.
    package var relay: String? = nil
}

extension PeerStatus {
    /// What its node knows of `connection`: handshaking until the peer authenticated, syncing until
    /// it caught this node up (`session`'s `syncedUpTo`), live after; `relay` is the link's role in
    /// the relay tree.
    init(_ connection: Connection, session: PeerSessions.Session?, relay: String?) {
        let peer = connection.peer
        let bytes = connection.byteCounts
        self.init(
            name: peer?.name, replica: peer?.replica, nodeID: peer?.nodeID, address: connection.remote,
            direction: connection.role.rawValue,
            state: peer == nil ? .handshaking : session?.syncedUpTo == nil ? .syncing : .live,
            syncedUpTo: session?.syncedUpTo, bytesReceived: bytes.received, bytesSent: bytes.sent, relay: relay)
    }
}

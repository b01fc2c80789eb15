import GalleryCrypto
import GalleryWire

/// The node's registry of peer connections: every connection it holds (handshaking or
/// authenticated) by ID, the address each outbound one was dialed at, since when each
/// authenticated one is up, and the rule that keeps one connection per pair of nodes. Sans I/O:
/// the node makes, closes and sends on the connections; this says which to close
/// (`SyncNode+Lifecycle`). Owned by the node's loop.
struct PeerRegistry {
    /// The connections by ID.
    var connections: [Int: Connection] = [:]
    /// The last connection ID given out (IDs start at 1 and are never reused).
    private(set) var lastID = 0
    /// The address each outbound connection was dialed at, by connection ID.
    private(set) var dialed: [Int: String] = [:]
    /// When each authenticated connection was authenticated (seconds since 1970), by connection ID.
    private(set) var since: [Int: Double] = [:]

    /// The ID of the next connection made.
    mutating func nextID() -> Int {
        lastID += 1
        return lastID
    }

    /// Holds a connection just made, dialed at `address` when outbound.
    mutating func hold(_ connection: Connection, dialedAt address: String?) {
        connections[connection.id] = connection
        dialed[connection.id] = address
    }

    /// Connection `id` authenticated at `time` (seconds since 1970).
    mutating func authenticated(_ id: Int, at time: Double) {
        since[id] = time
    }

    /// Connection `id` closed: it is held no more.
    mutating func closed(_ id: Int) {
        connections[id] = nil
    }

    /// Forgets what the address book used of connection `id` (once the book recorded its end).
    mutating func forgetAddress(of id: Int) {
        dialed[id] = nil
        since[id] = nil
    }

    /// The keys of the authenticated peers.
    var connectedKeys: Set<PeerKey> {
        Set(connections.values.compactMap { connection in connection.peer.map(PeerKey.init) })
    }

    /// What the duplicate rule closes.
    enum DuplicateClose: Equatable {
        /// The connection that just authenticated: the peer is reached by a preferred one already.
        case this
        /// An older connection to the same peer, replaced by the preferred one that just authenticated.
        case other(Int)
    }

    /// One connection per pair of nodes (one static key): when both dialed, the one opened by the
    /// node with the smaller node ID is kept, on both sides (`keepOutbound`: this node's ID is the
    /// smaller). `outbound` tells whether the connection that just authenticated was dialed here;
    /// `others` are the other connections to the same peer, in the registry's order, each with
    /// whether it was dialed here. The closes, in order: older ones that are not preferred until
    /// one that is, and then this one; nothing when this one is the only preferred.
    static func duplicateCloses(outbound: Bool, others: [(id: Int, outbound: Bool)], keepOutbound: Bool) -> [DuplicateClose] {
        let thisPreferred = outbound == keepOutbound
        var closes: [DuplicateClose] = []
        for other in others {
            let otherPreferred = other.outbound == keepOutbound
            if otherPreferred || !thisPreferred { return closes + [.this] }
            closes.append(.other(other.id))
        }
        return closes
    }

    /// The duplicate rule (`duplicateCloses`) for `connection`, which just authenticated as `peer`.
    func duplicateCloses(for connection: Connection, peer: PeerIdentity, keepOutbound: Bool) -> [DuplicateClose] {
        let others = connections.compactMap { id, other -> (id: Int, outbound: Bool)? in
            guard id != connection.id, other.peer?.key == peer.key else { return nil }
            return (id, other.role == .client)
        }
        return Self.duplicateCloses(outbound: connection.role == .client, others: others, keepOutbound: keepOutbound)
    }
}

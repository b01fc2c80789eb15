import GalleryIO
import GalleryWire

/// What a node remembers of its peers' static keys while it runs (protocol.md, "Node identity"):
/// the node each dialed address answered as (a later dial refuses another node there), the node
/// ID each peer name was first seen with (another key under a known name is reported), and the
/// conflicts seen. Owned by the node's loop.
///
/// What outlives a restart is in the address book: every address it holds belongs to one node ID,
/// and a dial there expects that node (`expectedNode(at:bookOwner:configured:)`); these pins add the addresses
/// the book does not keep, for as long as the node runs.
struct PeerKeyBook {
    /// The most conflicts kept for `status`.
    static let keptConflicts = 16

    /// The node each dialed address answered as at its first authenticated connection.
    private(set) var pinned: [Endpoint: NodeID] = [:]
    /// The node ID each peer name was first seen with.
    private(set) var nodeIDs: [String: NodeID] = [:]
    /// Conflicts, most recent last: a key other than the one pinned or known for the name.
    private(set) var conflicts: [String] = []

    /// Records `peer`, reached at `dialed` (nil for an inbound connection). Returns a description
    /// of the conflict when `peer` uses a name known under another node ID.
    mutating func record(_ peer: PeerIdentity, dialed: Endpoint?) -> String? {
        if let dialed, pinned[dialed] == nil { pinned[dialed] = peer.nodeID }
        guard let known = nodeIDs[peer.name] else {
            nodeIDs[peer.name] = peer.nodeID
            return nil
        }
        guard known != peer.nodeID else { return nil }
        let conflict = "node \(peer.nodeID) calls itself \(peer.name), the name of node \(known): "
            + "kept apart (an impostor, or \(peer.name) got a new key)"
        report(conflict)
        return conflict
    }

    /// Forgets the pins of `node` and of `address` (`gallery forget`): the next dial there takes
    /// whichever node answers.
    mutating func unpin(node: NodeID?, address: Endpoint?) {
        pinned = pinned.filter { endpoint, pinnedNode in pinnedNode != node && endpoint != address }
    }

    /// Keeps `conflict` for `status`.
    mutating func report(_ conflict: String) {
        conflicts.append(conflict)
        if conflicts.count > Self.keptConflicts { conflicts.removeFirst(conflicts.count - Self.keptConflicts) }
    }

    /// The node a dial to `endpoint` means to reach: the one the address book says listens there
    /// (`bookOwner`, kept across restarts), else the one configured for it (`configured`: a node
    /// that joined pins its inviter), else the one that answered there before while this node
    /// runs. Nil for an address no node has answered at yet (the first handshake there is trusted).
    func expectedNode(at endpoint: Endpoint?, bookOwner: PeerKey?, configured: [Endpoint: NodeID]) -> NodeID? {
        guard let endpoint else { return nil }
        if let bookOwner, let node = NodeID(rawValue: bookOwner.rawValue) { return node }
        return configured[endpoint] ?? pinned[endpoint]
    }
}

import GalleryCrypto
import GalleryIO
import GalleryWire

/// What a node remembers of its peers' static keys while it runs (protocol.md, "Node identity"):
/// the key each dialed address presented (a later dial refuses another key there), the node ID
/// each peer name was first seen with (another key under a known name is reported), and the
/// conflicts seen. Owned by the node's loop.
///
/// Kept in memory only: after a restart the first handshake with each address pins again (the
/// address book of issue 15 is where pins would persist).
struct PeerKeyBook {
    /// The most conflicts kept for `status`.
    static let keptConflicts = 16

    /// The key each dialed address presented at its first authenticated connection.
    private(set) var pinned: [Endpoint: X25519.PublicKey] = [:]
    /// The node ID each peer name was first seen with.
    private(set) var nodeIDs: [String: NodeID] = [:]
    /// Conflicts, most recent last: a key other than the one pinned or known for the name.
    private(set) var conflicts: [String] = []

    /// Records `peer`, reached at `dialed` (nil for an inbound connection). Returns a description
    /// of the conflict when `peer` uses a name known under another node ID.
    mutating func record(_ peer: PeerIdentity, dialed: Endpoint?) -> String? {
        if let dialed, pinned[dialed] == nil { pinned[dialed] = peer.key }
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

    /// Keeps `conflict` for `status`.
    mutating func report(_ conflict: String) {
        conflicts.append(conflict)
        if conflicts.count > Self.keptConflicts { conflicts.removeFirst(conflicts.count - Self.keptConflicts) }
    }
}

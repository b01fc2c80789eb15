/// A node's state as `status --json` prints it.
package struct NodeStatus: Codable, Hashable, Sendable {
    /// The node's name.
    package var name: String
    /// The node's replica ID, in hex.
    package var replica: String
    /// The node's ID: a digest of its static public key (absent from an older node's answer).
    package var nodeID: String?
    /// Where the node accepts peers, `HOST:PORT`, if it listens.
    package var address: String?
    /// The version vector: the last counter applied from each replica (hex replica ID -> counter).
    package var version: [String: UInt64]
    /// Ops applied.
    package var ops: Int
    /// Early ops held for missing dependencies.
    package var buffered: Int
    /// The connected peers.
    package var peers: [PeerListing]
    /// Transfers in flight: placeholders of this node being filled.
    package var transfers: [TransferListing]
    /// Storage faults, ops missing or refused (absent from an older node's answer).
    package var health: NodeHealth?
    /// The root of the relay tree this node follows (hex replica ID) and its distance from it in
    /// links (protocol.md, section 11); absent with relay trees off, or from an older node.
    package var treeRoot: String?
    package var treeHops: UInt64?
    /// Originals and thumbnails held, the keep policy, and the pictures not available (absent
    /// from a node without a blob store, or an older one).
    package var storage: StorageStatus?
    /// The files served from where they are (`add --in-place`); absent when there are none.
    package var keptInPlace: KeptInPlaceListing?

    package init(name: String, replica: String, address: String?, version: [String: UInt64], ops: Int, buffered: Int,
                peers: [PeerListing], transfers: [TransferListing], health: NodeHealth?, nodeID: String? = nil) {
        self.name = name
        self.replica = replica
        self.nodeID = nodeID
        self.address = address
        self.version = version
        self.ops = ops
        self.buffered = buffered
        self.peers = peers
        self.transfers = transfers
        self.health = health
    }
}

import GalleryModel

/// The durable sequence of a node's changes: the position of an applied op in the replica's op
/// log (the order the node applied its ops, which a restart restores, since the op files keep
/// that order). Every op counted is durable: an op is counted once it is stored, the moment it
/// is published on `NodeEvents`. So "the first N ops" means the same ops before and after a
/// restart, and an adapter can name a point of the node's history by N (the web adapter's event
/// IDs, http-api.md section 6).
extension SyncNode {
    /// Reads the replica together with the number of its ops that are durable (on the node's loop;
    /// `body` must not call back into the node). Ops at log positions below that number are
    /// stored; `Replica.lastOps` reaches them.
    package func readDurable<Result>(_ body: (_ replica: Replica, _ durableCount: Int) -> Result) -> Result {
        loop.sync { body(replica, durability.count) }
    }

    /// The ops at log positions `start..<end` (both at most the durable count read with `replica`),
    /// in the order the node applied them.
    package static func ops(from start: Int, to end: Int, in replica: Replica) -> [Op] {
        guard start < end, end <= replica.opCount, start >= 0 else { return [] }
        return Array(replica.lastOps(replica.opCount - start).prefix(end - start))
    }
}

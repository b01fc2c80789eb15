import GalleryModel

/// Where a node makes its applied ops durable: the storage side of the node core, implemented by
/// the node directory's op log (`GalleryServer`) and by tests.
///
/// The node's group-commit writer (`GroupCommit`) calls `store` off the node's loop, one call for
/// every op waiting at that moment, in the order the replica applied them.
package protocol OpStore: Sendable {
    /// Appends ops and syncs them to stable storage, once for the whole batch.
    ///
    /// On failure nothing of `ops` counts as stored: the same ops (and any applied since) are
    /// handed over again on the next attempt.
    func store(_ ops: [Op]) throws
}

/// An `OpStore` made of a closure (`NodeConfiguration.persist`).
struct ClosureOpStore: OpStore {
    /// Stores one batch of ops.
    let body: @Sendable (_ ops: [Op], _ local: Bool) throws -> Void

    func store(_ ops: [Op]) throws {
        try body(ops, false)
    }
}

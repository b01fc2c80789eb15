/// What a node could not do, as `status` shows it: storing ops, ops it lacks, ops it refused.
package struct NodeHealth: Codable, Hashable, Sendable {
    /// Why ops cannot be stored right now ("cannot write to DIR: No space left on device"), or nil.
    package var storage: String?
    /// Ops applied here but not yet stored (and so not sent to peers).
    package var unstoredOps: Int
    /// Ops that held ops wait for (lost from the op files, or not yet received), as `12@r` or
    /// `12...15@r`: asked from every peer at each sync.
    package var missingOps: [String]
    /// The most recent ops refused because they differ from the op held under their ID.
    package var divergentOps: [DivergentOp]
    /// Such ops refused since the node started.
    package var divergentOpCount: Int
    /// Peers that presented a static key other than the one known for their name or their dialed
    /// address (impostors, or nodes whose key was replaced), most recent last.
    package var identityConflicts: [String]?
    /// What the node repaired in its directory when it started (a record of `oplog` read back from
    /// `oplog.mirror`, ...), one line each; absent when nothing was. Not a problem: nothing was lost.
    package var repaired: [String]?

    package init(storage: String?, unstoredOps: Int, missingOps: [String], divergentOps: [DivergentOp], divergentOpCount: Int,
                identityConflicts: [String] = [], repaired: [String] = []) {
        self.storage = storage
        self.unstoredOps = unstoredOps
        self.missingOps = missingOps
        self.divergentOps = divergentOps
        self.divergentOpCount = divergentOpCount
        self.identityConflicts = identityConflicts.isEmpty ? nil : identityConflicts
        self.repaired = repaired.isEmpty ? nil : repaired
    }

    /// Whether nothing is wrong.
    package var isClean: Bool {
        storage == nil && unstoredOps == 0 && missingOps.isEmpty && divergentOpCount == 0 && (identityConflicts ?? []).isEmpty
    }
}

import GalleryModel

/// How a node restored its replica from its directory at start.
package struct StartupReport: Hashable, Sendable {
    /// Ops loaded with the snapshot (0 when none was used).
    package var snapshotOps: Int
    /// Ops read from the op files and handed to the replica (those the snapshot did not hold).
    package var replayedOps: Int
    /// What opening the record log (`oplog`) found.
    package var log: RecoveryReport
    /// What opening the compacted op file (`ops.compact`) found.
    package var compactLog: RecoveryReport
    /// One line per thing the operator should know: a snapshot ignored and why, a damaged tail
    /// cut off the compacted op file.
    package var notes: [String]
    /// The replica ID the node runs as: a new one when records were lost (`notes` says so).
    package var replica: ReplicaID
    /// What was repaired at start, one line each (also in `notes`): records of `oplog` read back
    /// from `oplog.mirror` or the other way round, a mirror created, ranges damaged in both.
    package var repairs: [String] = []
}

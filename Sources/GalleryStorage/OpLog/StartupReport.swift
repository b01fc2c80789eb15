import GalleryModel

/// How a node restored its replica from its directory at start.
public struct StartupReport: Hashable, Sendable {
    /// Ops loaded with the snapshot (0 when none was used).
    public var snapshotOps: Int
    /// Ops read from the op files and handed to the replica (those the snapshot did not hold).
    public var replayedOps: Int
    /// What opening the record log (`oplog`) found.
    public var log: RecoveryReport
    /// What opening the compacted op file (`ops.compact`) found.
    public var compactLog: RecoveryReport
    /// One line per thing the operator should know: a snapshot ignored and why, a damaged tail
    /// cut off the compacted op file.
    public var notes: [String]
    /// The replica ID the node runs as: a new one when records were lost (`notes` says so).
    public var replica: ReplicaID
}

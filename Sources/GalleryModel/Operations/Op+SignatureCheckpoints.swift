/// Signature checkpoints (protocol.md, "Signed ops"): the ops of a replica whose signature every
/// node keeps and sends, so that a log can serve a catch-up from any point with signatures at
/// most 4,096 ops apart, whoever it was caught up from.
extension Op {
    /// The counters of a checkpoint block: an op is a checkpoint when its counters reach a block
    /// its predecessor's did not.
    package static let checkpointBlockBits: UInt64 = 12

    /// Whether this op is a signature checkpoint of its replica: its last counter lies in a later
    /// block of 4,096 counters than its predecessor's last counter (`previous`). A replica's
    /// counters rise by at least one per op, so of any 4,096 consecutive ops of one replica at
    /// least one is a checkpoint; and whether an op is one depends on the op alone, so every
    /// node keeps the same ones.
    package var isSignatureCheckpoint: Bool {
        Self.isSignatureCheckpoint(previous: previous, lastCounter: lastCounter)
    }

    /// `isSignatureCheckpoint` from an op's predecessor and last counter.
    package static func isSignatureCheckpoint(previous: UInt64, lastCounter: UInt64) -> Bool {
        previous >> checkpointBlockBits != lastCounter >> checkpointBlockBits
    }
}

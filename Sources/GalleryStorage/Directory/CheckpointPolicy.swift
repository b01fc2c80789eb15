/// When a node served from a directory takes a checkpoint: a snapshot of its state, and its
/// record log's ops moved to the compacted op file, so that the next start replays few ops.
package struct CheckpointPolicy: Hashable, Sendable {
    /// A checkpoint is taken in the background once this many ops were applied since the last one.
    package var every: Int
    /// At a clean stop, a checkpoint is taken if at least this many ops were applied since the last.
    package var atStopAfter: Int

    /// Creates a policy; the defaults keep a start under a second for a million ops.
    package init(every: Int = 50_000, atStopAfter: Int = 1_000) {
        self.every = max(1, every)
        self.atStopAfter = max(1, atStopAfter)
    }
}

import Foundation

/// What the liveness pass carries from one run to the next. Owned by the node's loop.
struct LivenessState {
    /// When the pass last ran (uptime, nanoseconds).
    var previous: UInt64
    /// When ops waiting on a missing dependency were last re-requested.
    var gaps: GapWatch
}

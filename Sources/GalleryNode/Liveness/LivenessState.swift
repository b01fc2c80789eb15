import Foundation

/// What the liveness pass carries from one run to the next. Owned by the node's loop.
struct LivenessState {
    /// When the pass last ran (uptime, nanoseconds).
    var previous: UInt64
    /// When each connection is next due a look.
    var deadlines = LivenessDeadlines()
    /// When ops waiting on a missing dependency were last re-requested.
    var gaps: GapWatch
    /// When the node last sent a `graft` (one peer at a time is asked, `SyncNode+Relay`).
    var lastGraft: UInt64 = 0
    /// After the first catch-up of a joining node ended: the held-back requests wait until then
    /// (`SyncNode.joinSettle`).
    var joinSettleUntil: UInt64?
    /// Whether some session may hold its first `sync_request` back: set when one does, recomputed
    /// by each release, so that an idle pass does not look at every session for it.
    var requestsDeferred = false
}

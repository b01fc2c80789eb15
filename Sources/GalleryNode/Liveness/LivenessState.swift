import Foundation

/// What the liveness pass carries from one run to the next. Owned by the node's loop.
struct LivenessState {
    /// When the pass last ran (uptime, nanoseconds).
    var previous: UInt64
    /// When each connection is next due a look.
    var deadlines = LivenessDeadlines()
    /// When the node last sent a `graft` (one peer at a time is asked, `SyncNode+Relay`).
    var lastGraft: UInt64 = 0
    /// After the first catch-up of a joining node ended: the held-back requests wait until then
    /// (`SyncNode.joinSettle`).
    var joinSettleUntil: UInt64?
    /// Whether some session may hold its first `sync_request` back: set when one does, recomputed
    /// by each release, so that an idle pass does not look at every session for it.
    var requestsDeferred = false
    /// Quiet liveness: the last pass found nothing due for a while, so the next comes after
    /// `SyncNode.slowLivenessInterval`; anything that happens on the loop meanwhile brings the
    /// usual pace back (`SyncNode.wakeLiveness`).
    var slow = false
    /// Passes run so far (tests: an idle node's pace).
    var passes = 0
    /// Quiet liveness: the chain of pass timers that counts; a wake starts a new one.
    var passGeneration: UInt64 = 0
    /// Quiet liveness: how long after the previous pass this one was planned (nanoseconds).
    var plannedDelay: UInt64 = 0
    /// The relay scan's last look at the sessions (`SyncNode.relayPass`).
    var relayLook = Look()

    /// What a scan of every session saw, so that the next pass can tell whether it would find
    /// anything new: an idle pass costs nothing per session. The scan is due again when a
    /// session was written since (`SyncNode.sessionsChanges`), the node's total changed, or the
    /// earliest time-based decision of a session (a graft's timeout, an announcement's interval,
    /// a version exchange) comes.
    struct Look {
        /// `SyncNode.sessionsChanges` after the scan.
        var sessionsChanges: UInt64 = .max
        /// The node's total (`Durability.total`) at the scan.
        var total: UInt64 = .max
        /// When (uptime, nanoseconds) a session's decision may change with time alone; 0 forces
        /// the next scan (the relay tree changed).
        var nextDue: UInt64 = 0

        /// Whether a scan now could decide anything the last one did not.
        func isDue(sessionsChanges: UInt64, total: UInt64, now: UInt64) -> Bool {
            sessionsChanges != self.sessionsChanges || total != self.total || now >= nextDue
        }
    }
}

/// The node's liveness component: when the liveness pass runs and what it carries from one run to
/// the next. Which connections are due a look (`LivenessDeadlines`: heartbeats, silence and
/// handshake deadlines, stuck closes), a pass held up (a long turn of the loop, a paused process)
/// whose peers' silence is not theirs, and the pace: ten passes per heartbeat interval, or, with
/// quiet liveness, one a second while nothing is due, back to the usual pace as soon as anything
/// happens on the loop (protocol.md, section 10). Sans I/O: the node runs the pass, arms the
/// timers and acts on what this returns (`SyncNode+Loop`, `SyncNode+Lifecycle`). Owned by the node's loop.
struct Liveness {
    /// How long a node with quiet liveness that found nothing due waits for its next pass: one
    /// wake-up a second instead of ten when idle.
    static let slowInterval: UInt64 = 1_000_000_000

    /// When the pass last ran (uptime, nanoseconds).
    private(set) var previous: UInt64
    /// When each connection is next due a look.
    private var deadlines = LivenessDeadlines()
    /// When the node last sent a `graft` (one peer at a time is asked, `SyncNode+Relay`).
    var lastGraft: UInt64 = 0
    /// After the first catch-up of a joining node ended: the held-back requests wait until then
    /// (`SyncNode.joinSettle`).
    var joinSettleUntil: UInt64?
    /// Whether some session may hold its first `sync_request` back: set when one does, recomputed
    /// by each release, so that an idle pass does not look at every session for it.
    var requestsDeferred = false
    /// Quiet liveness: the last pass found nothing due for a while, so the next comes after
    /// `slowInterval`; anything that happens on the loop meanwhile brings the usual pace back
    /// (`wake`).
    private(set) var slow = false
    /// Passes run so far (tests: an idle node's pace).
    private(set) var passes = 0
    /// Quiet liveness: the chain of pass timers that counts; a wake starts a new one.
    private(set) var passGeneration: UInt64 = 0
    /// Quiet liveness: how long after the previous pass this one was planned (nanoseconds).
    private(set) var plannedDelay: UInt64 = 0
    /// The relay scan's last look at the sessions (`SyncNode.relayPass`).
    var relayLook = Look()

    /// No connection yet; the first pass counts from `now`.
    init(previous now: UInt64) {
        previous = now
    }

    /// What a scan of every session saw, so that the next pass can tell whether it would find
    /// anything new: an idle pass costs nothing per session. The scan is due again when a
    /// session was written since (`PeerSessions.changes`), the node's total changed, or the
    /// earliest time-based decision of a session (a graft's timeout, an announcement's interval,
    /// a version exchange) comes.
    struct Look {
        /// `PeerSessions.changes` after the scan.
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

    // MARK: Connections

    /// Connection `id` is due a look at `deadline`, unless it is due earlier already (it was
    /// made, it authenticated, it is closing).
    mutating func due(_ id: Int, at deadline: UInt64) {
        deadlines.schedule(id, at: deadline)
    }

    /// Connection `id` closed: it is looked at no more.
    mutating func forget(_ id: Int) {
        deadlines.remove(id)
    }

    /// The next connection due at `now`, nil when none is; it is untracked until `due` again.
    mutating func nextDue(now: UInt64) -> Int? {
        deadlines.popDue(now: now)
    }

    // MARK: The pass

    /// A pass begins at `now`, `heartbeatInterval` after the previous was meant to run (plus the
    /// delay planned for it, with quiet liveness): counts it, and returns how long it was held up
    /// beyond that when it was, nil otherwise. No heartbeat went out meanwhile, so the peers'
    /// silence over that time is not theirs.
    mutating func beginPass(now: UInt64, heartbeatInterval: UInt64, quiet: Bool) -> UInt64? {
        passes += 1
        defer { previous = now }
        let planned = quiet ? plannedDelay : 0
        guard now > previous && now - previous > heartbeatInterval &+ planned else { return nil }
        return now - previous - planned
    }

    /// Whether liveness itself has nothing due for `slowInterval` from `now`: no connection's
    /// deadline, no relay decision (with relay trees), no held-back request, no join settling.
    func quietForAWhile(now: UInt64, relayTrees: Bool) -> Bool {
        let soon = now &+ Self.slowInterval
        return (deadlines.nextDeadline ?? .max) >= soon
            && (!relayTrees || relayLook.nextDue >= soon)
            && !requestsDeferred
            && (joinSettleUntil.map { now >= $0 } ?? true)
    }

    /// Quiet liveness: the pass ended; the next comes after `slowInterval` when `nothingDueSoon`,
    /// at the usual pace otherwise.
    mutating func endPass(nothingDueSoon: Bool) {
        slow = nothingDueSoon
    }

    /// Quiet liveness: the delay before the next pass, `interval` being the usual pace.
    func nextDelay(interval: UInt64) -> UInt64 {
        slow ? Self.slowInterval : interval
    }

    /// Quiet liveness: the next pass is planned `delay` from now on the current chain of timers.
    /// Returns the chain's generation, for `plannedPassFired`.
    mutating func plan(after delay: UInt64) -> UInt64 {
        plannedDelay = delay
        return passGeneration
    }

    /// Quiet liveness: the timer of a pass planned on chain `generation` fired. False when a
    /// wake started another chain since (that one's timer runs the pass); else the pass runs,
    /// at the usual pace until it finds otherwise.
    mutating func plannedPassFired(generation: UInt64) -> Bool {
        guard generation == passGeneration else { return false }
        slow = false
        return true
    }

    /// Something happened on the loop: true when the passes had slowed down, and a new chain of
    /// timers must start at the usual pace (the slow one's timer no longer counts).
    mutating func wake() -> Bool {
        guard slow else { return false }
        slow = false
        passGeneration &+= 1
        return true
    }
}

/// The liveness state under its earlier name, which `SyncNode+Relay` names its look by.
typealias LivenessState = Liveness

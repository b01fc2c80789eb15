import Foundation
import GalleryIO
import GalleryWire

/// Liveness: a pass ten times per heartbeat interval on the node's loop looks at the connections
/// whose deadline is due (`LivenessDeadlines`: heartbeats, silence, handshake deadlines, stuck
/// closes), then at the node-wide work that runs on the same beat (gaps, version exchange,
/// redials, the relay's beat). An idle connection is looked at about once per heartbeat.
extension SyncNode {
    /// A connection's deadlines came closer (it authenticated: heartbeats are due; it is closing:
    /// its close must not take longer than `Connection.closeGrace`): looked at by `deadline`.
    func livenessDue(_ connection: Connection, at deadline: UInt64) {
        loop.async { [self] in
            guard connections[connection.id] != nil else { return }
            liveness.due(connection.id, at: deadline)
        }
    }

    /// How often the liveness pass runs: ten times per heartbeat interval.
    var livenessInterval: UInt64 {
        UInt64(max(configuration.heartbeatInterval.nanoseconds, 1_000_000)) / 10
    }

    /// Queues a liveness pass on the node's loop (unless one waits there already), which owns the
    /// connections and the replica; flushes the throttled log here, whatever the loop is doing.
    /// Called by the liveness timer.
    func requestLivenessPass() {
        let queue = condition.withLock { () -> Bool in
            guard !livenessQueued else { return false }
            livenessQueued = true
            return true
        }
        if queue {
            loop.async { [self] in
                condition.withLock { livenessQueued = false }
                livenessPass()
            }
        }
        throttledLog.flush(now: clock.now)
    }

    /// How many liveness passes have run (tests: an idle node's pace).
    package var livenessPasses: Int { loop.sync { liveness.passes } }

    /// Quiet liveness: the next pass, `delay` from now, on the current chain of timers; after
    /// it, the next one, sooner or later as the pass found. On the loop.
    func schedulePass(after delay: UInt64) {
        let generation = liveness.plan(after: delay)
        scheduleTimer(after: delay) { [self] in
            guard isRunning else { return }
            throttledLog.flush(now: clock.now)
            loop.async { [self] in
                guard liveness.plannedPassFired(generation: generation) else { return }
                livenessPass()
                schedulePass(after: liveness.nextDelay(interval: livenessInterval))
            }
        }
    }

    /// Something happened on the loop (a session, connection, op or durable batch changed): a
    /// node whose passes slowed down because nothing was due has its next pass at the usual pace.
    /// Cheap when not slowed: called from the loop state's accessors. On the loop.
    func wakeLiveness() {
        guard _liveness.wake() else { return }
        schedulePass(after: livenessInterval)
    }

    /// Quiet liveness: whether nothing is due for a second: nothing of liveness's own
    /// (`Liveness.quietForAWhile`), no version decision, no op waiting for a dependency, no
    /// redial due (an attempt under way, or a connection it made, ends with an event) or gossip,
    /// and nothing changed during the pass. On the loop.
    private func nothingDueSoon(now: UInt64, changesAtStart: UInt64) -> Bool {
        let soon = now &+ Liveness.slowInterval
        return sessionsChanges == changesAtStart
            && liveness.quietForAWhile(now: now, relayTrees: configuration.relayTrees)
            && peerSessions.versionLook.nextDue >= soon
            && replica.bufferedCount == 0
            && addresses.redial.idle(until: soon) && !addresses.gossipWanted
    }

    /// One liveness pass: relay (tree beat, announcements, grafts), then heartbeats, silence and
    /// handshake deadlines and stuck closes of the connections due, then gaps, version exchange
    /// and redials. On the loop.
    private func livenessPass() {
        let interval = UInt64(max(configuration.heartbeatInterval.nanoseconds, 1_000_000))
        let timeout = UInt64(max(configuration.peerTimeout.nanoseconds, 1_000_000))
        let handshakeDeadline = UInt64(max(configuration.handshakeTimeout.nanoseconds, 1_000_000))
        let now = clock.now
        let changesAtStart = sessionsChanges
        // The pass was held up (a long turn of the loop, a paused process): no heartbeat went out
        // meanwhile, so peers' silence over that time is not theirs. (A slowed pass was planned late.)
        if let gap = liveness.beginPass(now: now, heartbeatInterval: interval, quiet: configuration.quiet != nil) {
            for connection in connections.values { connection.excuseSilence(until: now, afterPassGap: gap, interval: interval) }
        }
        // The relay first: an announcement due on an idle link goes instead of its heartbeat.
        relayPass(now: now)
        while let id = liveness.nextDue(now: now) {
            guard let connection = connections[id] else { continue }
            let next = connection.tick(now: now, heartbeatInterval: interval, timeout: timeout, handshakeDeadline: handshakeDeadline)
            liveness.due(id, at: next)
        }
        checkForGaps(now: now)
        exchangeVersions(now: now)
        addressPass(now: now)
        if configuration.quiet != nil { liveness.endPass(nothingDueSoon: nothingDueSoon(now: now, changesAtStart: changesAtStart)) }
    }

    /// Gaps on live links: when ops have waited for missing dependencies for `gapTimeout`, sends a
    /// fresh `sync_request` to the peers `PeerSessions.checkGaps` names (protocol.md, "Sync"):
    /// each answers with what this node's version vector lacks, which fills the gap without a
    /// reconnect. On the loop.
    private func checkForGaps(now: UInt64) {
        let buffered = replica.bufferedCount
        guard let request = peerSessions.checkGaps(buffered: buffered, now: now, isConnected: { connections[$0] != nil })
        else { return }
        let peers = request.peers.compactMap { connections[$0] }
        let missing = replica.missingDependencies
        for connection in peers { requestCatchUp(from: connection) }
        let named = missing.prefix(3).map(\.description).joined(separator: ", ") + (missing.count > 3 ? ", ..." : "")
        throttledLog("gap", "\(configuration.name): \(buffered) ops have waited \((now - request.waitingSince) / 1_000_000) ms for \(named); "
            + "asking \(peers.count) peers again")
    }

    /// Anti-entropy: every session whose peer has caught it up and that has not carried one for
    /// `versionExchangeInterval` asks the peer for whatever this node's version vector lacks
    /// (`PeerSessions.versionExchangesDue`): a 16-byte digest of the vector to a peer that speaks
    /// `version_digest` (answered only when the peer's vector differs, so that the exchange of
    /// two nodes holding the same ops costs the same whatever the number of replicas), the
    /// `sync_request` itself to others. A lost frame that no later op depends on is filled within
    /// the interval (or two). On the loop.
    private func exchangeVersions(now: UInt64) {
        let interval = UInt64(max(configuration.versionExchangeInterval.nanoseconds, 1_000_000))
        // The sessions are scanned only when one was written or one's exchange falls due.
        guard let look = peerSessions.versionExchangesDue(now: now, interval: interval) else { return }
        defer { peerSessions.lookedAtVersions(nextDue: look.nextDue) }
        guard !look.due.isEmpty else { return }
        let digest = look.due.contains(where: \.byDigest) ? VersionDigest.of(replica.version) : nil
        for exchange in look.due {
            guard let connection = connections[exchange.id] else { continue }
            if exchange.byDigest, let digest {
                connection.send(.versionDigest(.digest(digest)))
                relayCountsOnLoop.digestsSent += 1
            } else {
                requestCatchUp(from: connection)
                relayCountsOnLoop.fullExchangesSent += 1
            }
            peerSessions.versionExchangeSent(exchange, now: now)
        }
    }
}

import Foundation
import GalleryIO

/// Liveness: a pass ten times per heartbeat interval on the node's loop looks at the connections
/// whose deadline is due (`LivenessDeadlines`: heartbeats, silence, handshake deadlines, stuck
/// closes), then at the node-wide work that runs on the same beat (gaps, version exchange,
/// redials, the relay's beat). An idle connection is looked at about once per heartbeat.
extension SyncNode {
    /// Holds a connection just made: the node's connections and liveness's deadlines (it is
    /// looked at on the next pass). On the loop.
    func hold(_ connection: Connection) {
        connections[connection.id] = connection
        addresses.dialed[connection.id] = connection.dialed?.description
        liveness.deadlines.schedule(connection.id, at: clock.now)
        notifyChange()
    }

    /// A connection's deadlines came closer (it authenticated: heartbeats are due; it is closing:
    /// its close must not take longer than `Connection.closeGrace`): looked at by `deadline`.
    func livenessDue(_ connection: Connection, at deadline: UInt64) {
        loop.async { [self] in
            guard connections[connection.id] != nil else { return }
            liveness.deadlines.schedule(connection.id, at: deadline)
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

    /// One liveness pass: relay (tree beat, announcements, grafts), then heartbeats, silence and
    /// handshake deadlines and stuck closes of the connections due, then gaps, version exchange
    /// and redials. On the loop.
    private func livenessPass() {
        let interval = UInt64(max(configuration.heartbeatInterval.nanoseconds, 1_000_000))
        let timeout = UInt64(max(configuration.peerTimeout.nanoseconds, 1_000_000))
        let handshakeDeadline = UInt64(max(configuration.handshakeTimeout.nanoseconds, 1_000_000))
        let now = clock.now
        // The pass was held up (a long turn of the loop, a paused process): no heartbeat went out
        // meanwhile, so peers' silence over that time is not theirs.
        if now > liveness.previous && now - liveness.previous > interval {
            for connection in connections.values { connection.excuseSilence(until: now, afterPassGap: now - liveness.previous, interval: interval) }
        }
        liveness.previous = now
        // The relay first: an announcement due on an idle link goes instead of its heartbeat.
        relayPass(now: now)
        while let id = liveness.deadlines.popDue(now: now) {
            guard let connection = connections[id] else { continue }
            let next = connection.tick(now: now, heartbeatInterval: interval, timeout: timeout, handshakeDeadline: handshakeDeadline)
            liveness.deadlines.schedule(id, at: next)
        }
        checkForGaps(&liveness.gaps, now: now)
        exchangeVersions(now: now)
        addressPass(now: now)
    }
}

import Foundation

/// Liveness of a connection: heartbeats, the silence limit, the handshake deadline, and closing
/// the channel under a peer that does not read its farewell.
extension Connection {
    /// How long the farewell (error frame) of a close may take before the channel is closed
    /// under it.
    static let closeGrace: UInt64 = 1_000_000_000

    /// Quiet liveness: this node told the peer (`features`) it takes `nanoseconds` of silence.
    func tolerateSilence(_ nanoseconds: UInt64) {
        state.withLock { $0.silenceTolerated = nanoseconds }
    }

    /// Quiet liveness: the peer takes long silences; a heartbeat goes after `nanoseconds` of quiet.
    func sendHeartbeats(every nanoseconds: UInt64) {
        state.withLock { $0.quietHeartbeatInterval = nanoseconds }
    }

    /// Counts the peer's silence from `now` at the earliest: the node could not hear it before.
    func excuseSilence(until now: UInt64) {
        state.withLock { $0.lastReceived = max($0.lastReceived, now) }
    }

    /// The liveness pass ran `gap` after the previous one: when that is longer than this
    /// connection's heartbeat interval (`interval`, or the quiet one), the node was held up and
    /// the peer's silence until `now` is not the peer's.
    func excuseSilence(until now: UInt64, afterPassGap gap: UInt64, interval: UInt64) {
        state.withLock { state in
            guard gap > state.quietHeartbeatInterval ?? interval else { return }
            state.lastReceived = max(state.lastReceived, now)
        }
    }

    /// Liveness: sends a heartbeat when idle, drops a silent peer and one that has not completed
    /// the handshake within `handshakeDeadline` of connecting (whatever it sent meanwhile), and
    /// closes the channel of a connection whose close is taking longer than `closeGrace`.
    ///
    /// - Returns: When the connection must next be looked at (uptime, nanoseconds), later than
    ///   `now`: the earliest of its heartbeat, silence, handshake and close deadlines as they stand.
    ///   Bytes sent or received meanwhile only move them later (`LivenessDeadlines`).
    func tick(now: UInt64, heartbeatInterval: UInt64, timeout: UInt64, handshakeDeadline: UInt64) -> UInt64 {
        // Quiet liveness (protocol.md, section 10) stretches both, once the features said so.
        let (heartbeatInterval, timeout) = state.withLock { state in
            (state.quietHeartbeatInterval ?? heartbeatInterval, state.peerKnown ? state.silenceTolerated ?? timeout : timeout)
        }
        // A turn of this connection's event loop that ran long (another connection's slow
        // handling) kept the peer's bytes waiting in the socket: its silence then is not its own.
        if let loop = eventLoop { excuseSilence(until: loop.unheardUntil(now: now)) }
        let sentAt = lastSent
        // Frames may have arrived after `now` was read: differences saturate at 0.
        let (heardAt, authenticated, closingAt) = state.withLock { state in
            (state.handlingFrames ? max(now, state.lastReceived) : state.lastReceived, state.peerKnown, state.closingSince)
        }
        let silent = now > heardAt ? now - heardAt : 0
        let idle = now > sentAt ? now - sentAt : 0
        let closeStuck = closingAt.map { now > $0 && now - $0 > Self.closeGrace } ?? false
        var heartbeatSentAt = sentAt
        if closeStuck {
            closeChannel()
        } else if !authenticated && now > startedAt && now - startedAt > handshakeDeadline {
            close(.timeout, "handshake not completed within \(handshakeDeadline / 1_000_000) ms")
        } else if silent > timeout {
            close(.timeout, authenticated ? "no frame for \(silent / 1_000_000) ms" : "handshake not completed in time")
        } else if authenticated && idle >= heartbeatInterval {
            send(.heartbeat)
            heartbeatSentAt = now
        }
        // Each deadline is the first instant at which its test above holds.
        var next = heardAt &+ timeout &+ 1
        if authenticated {
            next = min(next, heartbeatSentAt &+ heartbeatInterval)
        } else {
            next = min(next, startedAt &+ handshakeDeadline &+ 1)
        }
        if let closingSince = state.withLock({ $0.closingSince }) {
            // Closed meanwhile, or still closing: look again once the grace is over.
            next = min(next, max(closingSince, now) &+ Self.closeGrace &+ 1)
        }
        return max(next, now &+ 1)
    }

    /// After `close`: blocks until the channel has closed, closing it under a peer that does not
    /// read after `closeGrace` (the liveness timer, which otherwise does it, is gone once the
    /// node stops).
    func waitUntilClosed() {
        // On the connection's own loop (a stop from a handler), waiting would block the very
        // thread that closes it: close now instead.
        if let loop = eventLoop, loop.inEventLoop {
            channel?.close()
            return
        }
        if finished.wait(timeout: .now() + .nanoseconds(Int(Self.closeGrace))) == .timedOut {
            closeChannel()
            finished.wait()
        }
        finished.signal()
    }
}

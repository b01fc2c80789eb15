import Foundation
import GalleryWire

/// Liveness of a connection: heartbeats, the silence limit, the handshake deadline, and closing
/// the streams under a writer stuck on a peer that does not read.
extension Connection {
    /// How long the writer may take to send the error frame of a close before the streams are
    /// closed under it.
    static let closeGrace: UInt64 = 1_000_000_000

    /// Counts the peer's silence from `now` at the earliest: the node could not hear it before.
    func excuseSilence(until now: UInt64) {
        lock.withLock { lastReceived = max(lastReceived, now) }
    }

    /// Liveness: sends a heartbeat when idle, drops a silent peer and one that has not completed
    /// the handshake within `handshakeDeadline` of connecting (whatever it sent meanwhile), and
    /// closes the streams of a connection whose close is taking longer than `closeGrace`.
    func tick(now: UInt64, heartbeatInterval: UInt64, timeout: UInt64, handshakeDeadline: UInt64) {
        // Frames may have arrived after `now` was read: differences saturate at 0.
        let (silent, idle, authenticated, closeStuck) = lock.withLock {
            (handlingFrames || now <= lastReceived ? 0 : now - lastReceived, now > lastSent ? now - lastSent : 0, identity != nil,
             closingSince.map { now > $0 && now - $0 > Self.closeGrace } ?? false)
        }
        if closeStuck {
            streams.close()
        } else if !authenticated && now > startedAt && now - startedAt > handshakeDeadline {
            close(.timeout, "handshake not completed within \(handshakeDeadline / 1_000_000) ms")
        } else if silent > timeout {
            close(.timeout, authenticated ? "no frame for \(silent / 1_000_000) ms" : "handshake not completed in time")
        } else if authenticated && idle >= heartbeatInterval {
            send(.heartbeat)
        }
    }

    /// After `close`: blocks until both threads have ended, closing the streams under a writer
    /// still stuck on a peer that does not read after `closeGrace` (the liveness loop, which
    /// otherwise does it, is gone once the node stops).
    func waitUntilClosed() {
        if finished.wait(timeout: .now() + .nanoseconds(Int(Self.closeGrace))) == .timedOut {
            streams.close()
            finished.wait()
        }
        finished.signal()
    }
}

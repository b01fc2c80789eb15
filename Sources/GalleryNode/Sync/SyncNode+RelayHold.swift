import GalleryIO

/// Relaying under load, batched (protocol.md, "Relay", "Batching"): each durable op goes to the
/// peers at once when none went out for `relayHold`; otherwise it waits for the flush due `relayHold`
/// after the last one, with every op made durable meanwhile. A busy link then carries a few ops
/// per frame and per record (the record's 22 bytes of header and tag, the frame's 6, are paid per
/// flush, not per op), at the cost of at most `relayHold` per hop; a quiet one is unchanged. All on
/// the loop.
extension SyncNode {
    /// Sends durable batches to the peers now or with the next flush.
    func relayOrHold(_ batches: [InFlight]) {
        let hold = UInt64(max(configuration.relayHold.nanoseconds, 0))
        let now = clock.now
        guard hold > 0, canScheduleOnLoop else {
            relay(batches)
            return
        }
        if relayHold.batches.isEmpty, relayHold.lastFlush.map({ now >= $0 + hold }) ?? true {
            relayHold.lastFlush = now
            relay(batches)
            return
        }
        relayHold.batches += batches
        guard !relayHold.armed else { return }
        relayHold.armed = true
        let due = (relayHold.lastFlush ?? now) + hold
        scheduleOnLoop(after: due > now ? due - now : 0) { [self] in flushHeldRelay() }
    }

    /// Sends the held batches (the flush `relayOrHold` scheduled).
    func flushHeldRelay() {
        relayHold.armed = false
        guard !relayHold.batches.isEmpty else { return }
        let batches = relayHold.batches
        relayHold.batches = []
        relayHold.lastFlush = clock.now
        relay(batches)
    }

    /// Whether the node has a timer to run work on its loop later: the first event loop's, or the
    /// environment's clock on a custom transport (threaded I/O has none: it relays at once).
    var canScheduleOnLoop: Bool {
        eventLoops != nil || configuration.environment.transport != nil
    }

    /// Runs `task` on the node's loop `nanoseconds` from now (see `canScheduleOnLoop`).
    func scheduleOnLoop(after nanoseconds: UInt64, _ task: @escaping @Sendable () -> Void) {
        if let loops = eventLoops {
            loops.first.schedule(after: nanoseconds) { [loop] in loop.async(task) }
        } else {
            clock.schedule(after: nanoseconds) { [loop] in loop.async(task) }
        }
    }
}

import GalleryIO

/// Relaying under load, corked like TCP's autocorking (protocol.md, "Relay", "Batching"): a durable
/// batch goes to the peers at once when no other write is in flight (nothing applied waits for the
/// group commit), so a lone editor or a quiet relay pays nothing; what becomes durable while more
/// writes are still in flight is held and goes out together once the pipeline drains, or
/// `relayHold` after the first held batch at the latest. A busy link then carries many ops per frame
/// and per record (the record's 22 bytes of header and tag, the frame's 6, are paid per flush, not
/// per op). All on the loop.
extension SyncNode {
    /// Sends durable batches to the peers now, or with the flush that follows the writes in flight.
    func relayOrHold(_ batches: [InFlight]) {
        let cap = UInt64(max(configuration.relayHold.nanoseconds, 0))
        guard cap > 0, canScheduleOnLoop else {
            relay(batches)
            return
        }
        relayHold.batches += batches
        guard !inFlight.isEmpty else {
            flushHeldRelay()
            return
        }
        guard !relayHold.armed else { return }
        relayHold.armed = true
        scheduleOnLoop(after: cap) { [self] in
            relayHold.armed = false
            flushHeldRelay()
        }
    }

    /// Sends the held batches (the flush `relayOrHold` scheduled).
    func flushHeldRelay() {
        guard !relayHold.batches.isEmpty else { return }
        let batches = relayHold.batches
        relayHold.batches = []
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

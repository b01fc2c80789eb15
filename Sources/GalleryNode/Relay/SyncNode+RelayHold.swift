import GalleryIO

/// Relaying under load, corked like TCP's autocorking (protocol.md, "Relay", "Batching"): a durable
/// batch goes to the peers at once when no other write is in flight (nothing applied waits for the
/// group commit), so a lone editor or a quiet relay pays nothing; what becomes durable while more
/// writes are still in flight is held and goes out together once the pipeline drains, or
/// `relayHold` after the first held batch at the latest; so do the ops for a link whose previous
/// frames still wait in its outbox (the link's write is in flight). A busy link then carries many ops per frame
/// and per record (the record's 22 bytes of header and tag, the frame's 6, are paid per flush, not
/// per op). All on the loop.
extension SyncNode {
    /// Sends durable batches to the peers now, or with the flush that follows the writes in flight.
    func relayOrHold(_ batches: [InFlight]) {
        guard relayHoldCap > 0 else {
            relay(batches)
            return
        }
        relayHold.batches += batches
        if durability.isIdle {
            flushHeldRelay(corking: true)
        } else {
            armRelayFlush()
        }
    }

    /// Keeps batches for one link whose outbox is still writing: they go with the next flush.
    func corkRelay(_ batches: [InFlight], on link: Int) {
        relayHold.corked[link, default: []] += batches
        armRelayFlush()
    }

    /// The longest an op is held, in nanoseconds (`NodeConfiguration.relayHold`).
    private var relayHoldCap: UInt64 { UInt64(max(configuration.relayHold.nanoseconds, 0)) }

    /// Schedules the flush at the latest, `relayHold` from now, unless one is scheduled.
    private func armRelayFlush() {
        guard !relayHold.armed else { return }
        relayHold.armed = true
        scheduleOnLoop(after: relayHoldCap) { [self] in
            relayHold.armed = false
            // Corked batches are older than the held ones: on each link they go first.
            for (link, batches) in relayHold.takeCorked() { relay(batches, only: link) }
            flushHeldRelay(corking: false)
        }
    }

    /// Sends the held batches; with `corking`, links still writing keep them for the next flush.
    func flushHeldRelay(corking: Bool) {
        guard !relayHold.batches.isEmpty else { return }
        let batches = relayHold.batches
        relayHold.batches = []
        relay(batches, corking: corking)
    }

    /// Runs `task` on the node's loop `nanoseconds` from now (`scheduleTimer`).
    func scheduleOnLoop(after nanoseconds: UInt64, _ task: @escaping @Sendable () -> Void) {
        scheduleTimer(after: nanoseconds) { [loop] in loop.async(task) }
    }
}

import Foundation
import GalleryModel
import GalleryWire

/// Durability before anything leaves the node: ops applied on the loop go to the group-commit
/// writer; when it reports them durable, the loop relays them to the live peers (`SyncNode+Relay`), publishes them on `events`, and wakes the commands that made them. All on the loop.
extension SyncNode {
    /// Takes ops just applied (by a command, or received from `source`): hands them to the writer,
    /// or, for a node that does not persist, treats them as durable at once. Returns a ticket to
    /// wait on when `waits` and they are not durable yet.
    func applied(_ ops: [Op], source: Int?, waits: Bool) -> DurabilityTicket? {
        guard !ops.isEmpty else { return nil }
        let end = replica.opCount
        inFlight.append(InFlight(ops: ops, end: end, source: source))
        guard let writer else {
            becameDurable(upTo: end)
            return nil
        }
        writer.submit(ops, end: end)
        notifyChange()
        guard waits else { return nil }
        let ticket = DurabilityTicket()
        durabilityWaiters.append((end, ticket))
        return ticket
    }

    /// Takes a report of the group-commit writer.
    func handle(_ report: GroupCommit.Report) {
        switch report {
        case .durable(let end, let stored):
            if storageFault != nil { storageWorksAgain(stored: stored) }
            becameDurable(upTo: end)
        case .failed(let error):
            storingFailed(error)
        }
    }

    /// The replica's first `end` ops are durable: sends the ops that became so, tells the
    /// subscribers and the commands waiting for them.
    func becameDurable(upTo end: Int) {
        guard end > durableCount else { return }
        var taken = 0
        while taken < inFlight.count && inFlight[taken].end <= end { taken += 1 }
        let batches = Array(inFlight[..<taken])
        inFlight.removeFirst(taken)
        durableCount = end
        for batch in batches {
            // An insert of n items holds n counters: the vector names the last (protocol.md, "Identifiers").
            for op in batch.ops where durableVersion[op.id.replica] < op.lastCounter {
                let (total, overflow) = durableTotal.addingReportingOverflow(op.lastCounter - durableVersion[op.id.replica])
                durableTotal = overflow ? .max : total
                durableVersion[op.id.replica] = op.lastCounter
            }
        }
        relayOrHold(batches)
        if !events.isEmpty {
            events.publish(.applied(batches.count == 1 ? batches[0].ops : batches.flatMap(\.ops)))
        }
        var shown = 0
        while shown < heldProgress.count && heldProgress[shown].end <= end {
            events.publish(.transferProgress(heldProgress[shown].progress))
            shown += 1
        }
        heldProgress.removeFirst(shown)
        var waiting = 0
        while waiting < durabilityWaiters.count && durabilityWaiters[waiting].end <= end {
            durabilityWaiters[waiting].ticket.succeed()
            waiting += 1
        }
        durabilityWaiters.removeFirst(waiting)
        notifyChange()
    }

    /// A barrier through the writer: `body` runs on the writer with the replica as it is now, once
    /// all its ops are durable (and before any op applied later is stored), or with nil while
    /// storing fails. What a checkpoint takes its copy under.
    package func withDurableReplica<T: Sendable>(_ body: @escaping @Sendable (Replica) -> T?) -> T? {
        let result = UncheckedBox<T?>(nil)
        let done = Completion()
        loop.sync {
            guard storageFault == nil else {
                done.signal()
                return
            }
            let copy = replica
            guard let writer else {
                result.value = body(copy)
                done.signal()
                return
            }
            writer.barrier { durable in
                if durable { result.value = body(copy) }
                done.signal()
            }
        }
        done.wait()
        return result.value
    }

    /// Group-commit batches stored since the node started (one `OpStore.store` each).
    package var storedBatches: Int {
        writer?.batches ?? 0
    }
}

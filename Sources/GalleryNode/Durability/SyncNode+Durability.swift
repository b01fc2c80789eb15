import Foundation
import GalleryModel

/// Durability before anything leaves the node: ops applied on the loop go to the group-commit
/// writer; when it reports them durable, the loop relays them to the live peers (`SyncNode+Relay`), publishes them on `events`, and wakes the commands that made them. All on the loop.
extension SyncNode {
    /// Takes ops just applied (by a command, or received from `source`): hands them to the writer,
    /// or, for a node that does not persist, treats them as durable at once. Returns a ticket to
    /// wait on when `waits` and they are not durable yet.
    func applied(_ ops: [Op], source: Int?, waits: Bool) -> DurabilityTicket? {
        guard !ops.isEmpty else { return nil }
        let end = replica.opCount
        durability.submitted(ops, end: end, source: source)
        guard let writer else {
            becameDurable(upTo: end)
            return nil
        }
        writer.submit(ops, end: end)
        notifyChange()
        return waits ? durability.ticket(until: end) : nil
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
        assert(end <= replica.opCount, "only applied ops become durable")
        guard let released = durability.becameDurable(upTo: end) else { return }
        relayOrHold(released.batches)
        // Told here, on the loop, rather than by an event subscription (a thread of its own): a
        // delete of a placeholder in flight ends its transfer (`TransferManager.applied`).
        if let transfers { for batch in released.batches { transfers.applied(batch.ops) } }
        if !events.isEmpty {
            let batches = released.batches
            events.publish(.applied(batches.count == 1 ? batches[0].ops : batches.flatMap(\.ops)))
        }
        for progress in released.progress { events.publish(.transferProgress(progress)) }
        for ticket in released.tickets { ticket.succeed() }
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

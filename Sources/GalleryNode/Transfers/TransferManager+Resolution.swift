import Foundation
import GalleryModel

/// How transfers end: committed, failed (the placeholder deleted), or cancelled.
extension TransferManager {
    /// The bytes of a download are in the store: commits each of its placeholders where it stands
    /// now, then (for `--move`) deletes the source, in one durable batch, so that an item is never
    /// in neither place. Returns at once: the transfers end on `passLane` once the batch is durable.
    func complete(_ hash: String) {
        complete([hash])
    }

    /// `complete(_:)` for several blobs in the store (a durable batch of blobs, h-27c): their
    /// placeholders committed in one durable batch of ops (a commit that fails leaves the others to
    /// commit). Returns at once: the transfers end on `passLane` once the batch is durable.
    func complete(_ hashes: [String]) {
        for hash in hashes { node?.thumbnails?.originalStored(hash) }
        let waiting = lock.withLock { hashes.flatMap { (downloads[$0]?.placeholders ?? []).compactMap { transfers[$0] } } }
        guard let node else { return }
        node.perform({ replica -> (committed: Set<OpID>, failures: [String]) in
            var committed: Set<OpID> = []
            var failures: [String] = []
            for transfer in waiting {
                guard let item = replica.item(transfer.placeholder), !item.isDeleted, item.state == .placeholder else { continue }
                do {
                    try replica.commit(transfer.placeholder)
                    committed.insert(transfer.placeholder)
                    if transfer.move, let source = replica.item(transfer.source), !source.isDeleted {
                        try replica.delete(transfer.source)
                    }
                } catch {
                    failures.append("\(transfer.placeholder): \(error.localizedDescription)")
                }
            }
            return (committed, failures)
        }, then: passLane) { [self] result in
            var committed: Set<OpID> = []
            var failures: [String] = []
            switch result {
            case .success(let outcome): (committed, failures) = outcome
            case .failure(let error): failures = [error.localizedDescription]
            }
            for failure in failures {
                node.configuration.log("cannot commit the placeholders of blobs \(hashes.map { $0.prefix(12) }): \(failure)")
            }
            completed(hashes, waiting: waiting, committed: committed)
        }
    }

    /// The commit of a download's placeholders is durable (or failed): their transfers end, and
    /// placeholders that joined the download meanwhile are committed by the next pass.
    private func completed(_ hashes: [String], waiting: [Transfer], committed: Set<OpID>) {
        let callbacks = lock.withLock { () -> [() -> Void] in
            var callbacks: [() -> Void] = []
            for transfer in waiting where transfers[transfer.placeholder] != nil {
                let outcome: TransferOutcome = committed.contains(transfer.placeholder)
                    ? .committed : .failed(failureReasons[transfer.placeholder] ?? "cancelled: the placeholder was deleted")
                callbacks += finalize(transfer.placeholder, outcome)
            }
            for hash in hashes {
                // Placeholders that joined the download meanwhile: the next pass commits them. A
                // relay or a demand (no placeholder) is done: the bytes are in the store.
                if downloads[hash] != nil { answerDemands(&downloads[hash]!, .success(())) }
                if downloads[hash]?.placeholders.isEmpty == true {
                    downloads[hash] = nil
                } else if downloads[hash] != nil {
                    downloads[hash]!.phase = .waiting(until: 0)
                }
            }
            return callbacks
        }
        for callback in callbacks { callback() }
        poke()
        releaseMemoryIfIdle()
        // The last transfer may end here while no pass is due: the journal is emptied now, not
        // at the next drag.
        flushJournal()
    }

    /// Hands freed memory back to the system once no download is left and a burst of bytes was
    /// stored since the last time (`TransferManager.releaseAfterBytes`).
    func releaseMemoryIfIdle() {
        let release = lock.withLock { () -> Bool in
            guard downloads.isEmpty, storedSinceRelease >= Self.releaseAfterBytes else { return false }
            storedSinceRelease = 0
            return true
        }
        if release { node?.configuration.environment.releaseFreedMemory() }
    }

    /// Deletes placeholders (`deletePlaceholder()`), recording why their transfers failed. Returns
    /// at once: the transfers end on `passLane` once the deletes are durable, then `afterwards` runs.
    func fail(_ placeholders: [OpID], reason: String, afterwards: (@Sendable () -> Void)? = nil) {
        guard !placeholders.isEmpty, let node else {
            afterwards?()
            return
        }
        let hashes = lock.withLock { () -> Set<String> in
            for placeholder in placeholders where failureReasons[placeholder] == nil { failureReasons[placeholder] = reason }
            return Set(placeholders.compactMap { transfers[$0]?.hash })
        }
        node.perform({ replica in
            for placeholder in placeholders {
                // A placeholder committed since the failure was decided (a deadline or a cancel
                // racing the last chunk) stays: its --move source is already deleted with it.
                guard let item = replica.item(placeholder), !item.isDeleted, item.state == .placeholder else { continue }
                try replica.delete(placeholder)
            }
        }, then: passLane) { [self] result in
            if case .failure(let error) = result {
                node.configuration.log("cannot delete placeholders: \(error.localizedDescription)")
            }
            // Placeholders already deleted (or not deletable) are finalized here; the others were
            // by `applied` when their delete became durable.
            let callbacks = lock.withLock { () -> [() -> Void] in
                let callbacks = placeholders.filter { transfers[$0] != nil }.flatMap { finalize($0, .failed(failureReasons[$0] ?? reason)) }
                // A download that other placeholders joined meanwhile tries again for them.
                for hash in hashes where downloads[hash] != nil {
                    if case .finishing = downloads[hash]!.phase { downloads[hash]!.phase = .waiting(until: 0) }
                }
                return callbacks
            }
            for callback in callbacks { callback() }
            afterwards?()
            poke()
            flushJournal()
        }
    }

    /// Deletes placeholders as `fail` does and waits until their transfers ended. Not on the
    /// node's workers nor its loop (it waits for both).
    func failAndWait(_ placeholders: [OpID], reason: String) {
        let ended = Completion()
        fail(placeholders, reason: reason) { ended.signal() }
        ended.wait()
    }

    /// Cancels transfers in flight (`gallery cancel`): their placeholders are deleted.
    ///
    /// - Throws: `ActionError` naming an ID that is not a transfer in flight.
    package func cancel(_ ids: [OpID]) throws {
        try lock.withLock {
            for id in ids where transfers[id] == nil {
                if let outcome = outcomes[id] { throw ActionError.transferEnded(id, outcome: "\(outcome)") }
                throw ActionError.unknownTransfer(id)
            }
        }
        failAndWait(ids, reason: "cancelled")
        // A transfer that committed between the check above and the delete was not cancelled.
        let committed = lock.withLock { ids.filter { outcomes[$0] == .committed } }
        if let id = committed.first { throw ActionError.transferEnded(id, outcome: "committed") }
    }

    /// Sees every batch of ops applied by the node, once durable (on the node's loop,
    /// `becameDurable`): a delete of a placeholder in flight ends its transfer (rule 10: delete
    /// wins over commit). The waiters are called on `passLane`, never on the loop.
    func applied(_ ops: [Op]) {
        let callbacks = lock.withLock { () -> [() -> Void] in
            guard !transfers.isEmpty else { return [] }
            var callbacks: [() -> Void] = []
            for op in ops {
                guard case .delete(let item) = op.action, transfers[item] != nil else { continue }
                callbacks += finalize(item, .failed(failureReasons[item] ?? "cancelled: the placeholder was deleted"))
            }
            if !callbacks.isEmpty { requestPass() }
            return callbacks
        }
        guard !callbacks.isEmpty else { return }
        let calls = UncheckedBox(callbacks)
        passLane.async { for callback in calls.value { callback() } }
    }

    /// Calls `callback` once every transfer of `ids` has ended (at once if they have).
    package func whenEnded(_ ids: [OpID], _ callback: @escaping @Sendable ([OpID: TransferOutcome]) -> Void) {
        let ready = lock.withLock { () -> [OpID: TransferOutcome]? in
            let set = Set(ids)
            if set.allSatisfy({ transfers[$0] == nil }) {
                return Dictionary(uniqueKeysWithValues: set.map { ($0, outcomes[$0] ?? .failed("unknown transfer")) })
            }
            waiters.append((set, callback))
            return nil
        }
        if let ready { callback(ready) }
    }

    /// Ends a transfer: forgets it, detaches it from its download (which stops when no placeholder
    /// waits for it any more), remembers the outcome, and returns the waiters to call. Caller holds
    /// `lock`.
    func finalize(_ placeholder: OpID, _ outcome: TransferOutcome) -> [() -> Void] {
        guard let transfer = transfers.removeValue(forKey: placeholder) else { return [] }
        failureReasons[placeholder] = nil
        progressLock.withLock { _ = progressTable.removeValue(forKey: placeholder) }
        if var download = downloads[transfer.hash] {
            download.placeholders.removeAll { $0 == placeholder }
            // Readers waiting for the bytes keep the download going.
            if download.placeholders.isEmpty && download.demanders.isEmpty {
                downloads[transfer.hash] = nil
                if case .fetching(let connection, let request, _, _) = download.phase {
                    requests[request] = nil
                    connection.send(.cancel(id: request))
                }
                // The bytes are not wanted any more (a finished writer has nothing left to delete).
                download.writer?.cancel()
            } else {
                downloads[transfer.hash] = download
            }
        }
        outcomes[placeholder] = outcome
        outcomeOrder.append(placeholder)
        if outcomeOrder.count > 2 * Self.rememberedOutcomes {
            let forgotten = outcomeOrder.count - Self.rememberedOutcomes
            for id in outcomeOrder[..<forgotten] { outcomes[id] = nil }
            outcomeOrder.removeFirst(forgotten)
        }
        journalEnded = true
        var callbacks: [() -> Void] = []
        waiters.removeAll { waiter in
            guard waiter.ids.allSatisfy({ transfers[$0] == nil }) else { return false }
            let result = Dictionary(uniqueKeysWithValues: waiter.ids.map { ($0, outcomes[$0] ?? .failed("unknown transfer")) })
            let callback = waiter.callback
            callbacks.append { callback(result) }
            return true
        }
        return callbacks
    }
}

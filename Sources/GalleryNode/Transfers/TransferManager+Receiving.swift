import Foundation
import GalleryWire

/// The requester's side of `fetch`: chunks arriving, refusals, and peers going away.
extension TransferManager {
    /// Takes a chunk of an open fetch: counts it received, asks for the next bytes as soon as the
    /// fetch is answered in full (unless the stage is more than `backlogBytes` behind), and hands
    /// the chunk to its download's stage, which hashes and stores it off this (the connection's)
    /// thread (`store(_:hash:writer:)`). A chunk of a request no longer open is dropped.
    func received(_ chunk: Chunk, on connection: Connection) {
        var cancel: UInt64?
        var next: FetchRequest?
        var job: (stage: any NodeExecutor, writer: any BlobSink)?
        let hash = lock.withLock { () -> String? in
            guard running, let hash = requests[chunk.id], var download = downloads[hash],
                  case .fetching(let asked, let request, let peer, let name) = download.phase,
                  asked === connection, request == chunk.id, let writer = download.writer,
                  let stage = download.stage else { return nil }
            defer { downloads[hash] = download }
            let end = download.done + chunk.data.count
            guard chunk.total == UInt64(download.size), chunk.offset == UInt64(download.done), end <= download.requestEnd else {
                // Not the bytes asked for: this peer is not a source for them.
                requests[request] = nil
                cancel = request
                download.refusedBy.insert(peer)
                download.phase = .waiting(until: 0)
                requestPass()
                return hash
            }
            download.done = end
            download.suppliers.insert(peer)
            let now = uptime
            download.noteActivity(on: connection, now: now)
            if download.demandedAt != nil { download.demandedAt = now }
            if end == download.requestEnd {
                // The fetch is answered in full: ask for the next bytes before this chunk is
                // hashed, so that the peer sends while this node hashes and writes.
                requests[request] = nil
                if end == download.size {
                    download.phase = .finishing
                } else if end - download.written <= backlogBytes {
                    let following = makeRequest(for: &download, from: end)
                    download.phase = .fetching(connection, request: following.id, peer: peer, name: name)
                    next = following
                } else {
                    download.nextDeferred = true
                }
            }
            job = (stage, writer)
            return hash
        }
        guard let hash else { return }
        if let next { connection.send(.fetch(next)) }
        if let cancel { connection.send(.cancel(id: cancel)) }
        if let job {
            let data = chunk.data
            job.stage.async { [self] in store(data, hash: hash, writer: job.writer) }
        }
        updateProgress(hash, force: false)
    }

    /// A peer cannot serve a fetch: `not_found` moves on to another peer; anything else is retried
    /// a little later.
    func fetchFailed(_ request: UInt64, code: ErrorCode, on connection: Connection) {
        lock.withLock {
            guard let hash = requests.removeValue(forKey: request), var download = downloads[hash],
                  case .fetching(let asked, let open, let peer, _) = download.phase,
                  asked === connection, open == request else { return }
            if code == .notFound {
                notFoundAnswers += 1
                download.refusedBy.insert(peer)
                download.phase = .waiting(until: 0)
            } else {
                download.phase = .waiting(until: uptime + 1_000_000_000)
            }
            downloads[hash] = download
            requestPass()
        }
    }

    /// A connection closed: its downloads go back to waiting, to resume from the bytes held with
    /// another peer, or with the same one when it is back.
    func connectionClosed(_ connection: Connection) {
        lock.withLock {
            for (hash, download) in downloads {
                guard case .fetching(let asked, let request, _, _) = download.phase, asked === connection else { continue }
                requests[request] = nil
                downloads[hash]?.phase = .waiting(until: uptime + 100_000_000)
                downloads[hash]?.nextDeferred = false
            }
            requestPass()
        }
    }

    /// Verifies the whole download, then hands it to the next durable batch (`storeVerified`),
    /// which stores it and commits its placeholders. A resumed partial file that fails to verify
    /// is fetched once more from the start.
    func finish(_ hash: String, _ writer: any BlobSink) {
        do {
            try writer.verify()
        } catch .hashMismatch(let expected, let actual) {
            // Readers streaming these bytes abort what they sent: it was not the blob.
            let discarded = lock.withLock { () -> [any DemandTap] in
                defer { downloads[hash]?.taps = [] }
                return downloads[hash]?.taps ?? []
            }
            for tap in discarded { tap.discarded() }
            let retry = lock.withLock { () -> Bool in
                guard var download = downloads[hash] else { return false }
                if writer.resumeOffset > 0 && !download.restartedFromZero {
                    // The partial file kept from before may be what is wrong: once more from 0.
                    download.restartedFromZero = true
                } else {
                    // The peers that sent these bytes hold something else under this hash:
                    // another holder may have the real bytes.
                    guard !download.suppliers.isEmpty else { return false }
                    download.mismatchedBy.formUnion(download.suppliers)
                    download.mismatch = "hash mismatch: the bytes received hash to \(actual), not \(expected)"
                    mismatchedHolders.note(download.suppliers, for: hash, reason: download.mismatch!, now: uptime)
                    node?.configuration.log("\(node?.configuration.name ?? "?"): the bytes of \(hash.prefix(12)) from "
                        + "\(download.suppliers.count) peer(s) hash to \(actual.prefix(12)); asking another")
                }
                download.suppliers = []
                download.writer = nil
                download.stage = nil
                download.done = 0
                download.written = 0
                download.checkpointed = 0
                download.phase = .waiting(until: 0)
                downloads[hash] = download
                requestPass()
                return true
            }
            if !retry {
                let placeholders = lock.withLock { downloads[hash]?.placeholders ?? [] }
                fail(placeholders, reason: "hash mismatch: the bytes received hash to \(actual), not \(expected)") { [self] in
                    lock.withLock { dropUnwanted(hash, failure: .hashMismatch) }
                }
            }
            return
        } catch {
            let placeholders = lock.withLock { downloads[hash]?.placeholders ?? [] }
            let reason = error.localizedDescription
            fail(placeholders, reason: "cannot store the bytes: \(reason)") { [self] in
                lock.withLock { dropUnwanted(hash, failure: .storage(reason)) }
            }
            return
        }
        storeVerified(hash, writer)
    }

    /// Publishes a download's progress to the node's watchers, at most every `reportInterval`
    /// unless `force`.
    func updateProgress(_ hash: String, force: Bool = true) {
        let now = uptime
        let report = lock.withLock { () -> [TransferProgress]? in
            guard var download = downloads[hash] else { return nil }
            progressLock.withLock {
                for placeholder in download.placeholders { progressTable[placeholder] = (download.done, download.size) }
            }
            // The reader and the stage both report: another may have reported after `now` was read.
            guard force || (now > download.lastReport && now - download.lastReport >= Self.reportInterval) else { return nil }
            download.lastReport = now
            downloads[hash] = download
            return download.placeholders.map { TransferProgress(transfer: $0, done: download.done, total: download.size) }
        }
        if let report, !report.isEmpty { node?.publishProgress(report) }
    }
}

import Foundation
import GalleryModel
import GalleryWire

/// The requester's side of `fetch`: chunks arriving, refusals, and peers going away.
extension TransferManager {
    /// Appends a chunk to its download (hashing it on the way), reports progress, and finishes the
    /// download at its last byte. A chunk of a request no longer open is dropped.
    func received(_ chunk: Chunk, on connection: Connection) {
        var writerToSync: (any BlobSink)?
        var finished: (any BlobSink)?
        var failure: (placeholders: [OpID], reason: String)?
        var cancel: UInt64?
        var next: FetchRequest?
        let hash = lock.withLock { () -> String? in
            guard let hash = requests[chunk.id], var download = downloads[hash],
                  case .fetching(let asked, let request, let peer, let name) = download.phase,
                  asked === connection, request == chunk.id, let writer = download.writer else { return nil }
            defer { downloads[hash] = download }
            let end = download.done + chunk.data.count
            guard chunk.total == UInt64(download.size), chunk.offset == UInt64(download.done), end <= download.requestEnd else {
                // Not the bytes asked for: this peer is not a source for them.
                requests[request] = nil
                cancel = request
                download.refusedBy.insert(peer)
                download.phase = .waiting(until: 0)
                poked = true
                lock.broadcast()
                return hash
            }
            // The request is answered in full: ask for the next chunk before hashing this one, so
            // that the peer sends while this node hashes.
            if end == download.requestEnd {
                requests[request] = nil
            }
            if end == download.requestEnd && end < download.size {
                let following = makeRequest(for: &download, from: end)
                download.phase = .fetching(connection, request: following.id, peer: peer, name: name)
                next = following
            }
            download.noteActivity(on: connection, now: Self.now)
            do {
                try writer.append(chunk.data)
            } catch {
                if let next { requests[next.id] = nil }
                download.phase = .finishing
                failure = (download.placeholders, "cannot store the bytes: \(error.localizedDescription)")
                return hash
            }
            download.done += chunk.data.count
            if download.done == download.size {
                download.phase = .finishing
                finished = writer
            } else if download.done - download.checkpointed >= Self.checkpointBytes {
                download.checkpointed = download.done
                writerToSync = writer
            }
            return hash
        }
        guard let hash else { return }
        if let next { connection.send(.fetch(next)) }
        if let cancel { connection.send(.cancel(id: cancel)) }
        if let failure {
            fail(failure.placeholders, reason: failure.reason)
            lock.withLock { dropUnwanted(hash) }
        }
        try? writerToSync?.checkpoint()
        updateProgress(hash, force: finished != nil)
        // Syncing the blob and committing its placeholders happen off the connection's reader, so
        // that the ops and chunks that follow from this peer do not wait behind them.
        if let finished { Thread.detachNewThread { [self] in finish(hash, finished) } }
    }

    /// A peer cannot serve a fetch: `not_found` moves on to another peer; anything else is retried
    /// a little later.
    func fetchFailed(_ request: UInt64, code: ErrorCode, on connection: Connection) {
        lock.withLock {
            guard let hash = requests.removeValue(forKey: request), var download = downloads[hash],
                  case .fetching(let asked, let open, let peer, _) = download.phase,
                  asked === connection, open == request else { return }
            if code == .notFound {
                download.refusedBy.insert(peer)
                download.phase = .waiting(until: 0)
            } else {
                download.phase = .waiting(until: Self.now + 1_000_000_000)
            }
            downloads[hash] = download
            poked = true
            lock.broadcast()
        }
    }

    /// A connection closed: its downloads go back to waiting, to resume from the bytes held with
    /// another peer, or with the same one when it is back.
    func connectionClosed(_ connection: Connection) {
        lock.withLock {
            for (hash, download) in downloads {
                guard case .fetching(let asked, let request, _, _) = download.phase, asked === connection else { continue }
                requests[request] = nil
                downloads[hash]?.phase = .waiting(until: Self.now + 100_000_000)
            }
            poked = true
            lock.broadcast()
        }
    }

    /// Verifies the whole download and moves it into the store, then commits its placeholders.
    /// A resumed partial file that fails to verify is fetched once more from the start.
    func finish(_ hash: String, _ writer: any BlobSink) {
        do {
            try writer.finish()
        } catch .hashMismatch(let expected, let actual) {
            let retry = lock.withLock { () -> Bool in
                guard var download = downloads[hash], writer.resumeOffset > 0, !download.restartedFromZero else { return false }
                download.restartedFromZero = true
                download.writer = nil
                download.done = 0
                download.checkpointed = 0
                download.phase = .waiting(until: 0)
                downloads[hash] = download
                poked = true
                lock.broadcast()
                return true
            }
            if !retry {
                let placeholders = lock.withLock { downloads[hash]?.placeholders ?? [] }
                fail(placeholders, reason: "hash mismatch: the bytes received hash to \(actual), not \(expected)")
                lock.withLock { dropUnwanted(hash) }
            }
            return
        } catch {
            let placeholders = lock.withLock { downloads[hash]?.placeholders ?? [] }
            fail(placeholders, reason: "cannot store the bytes: \(error.localizedDescription)")
            lock.withLock { dropUnwanted(hash) }
            return
        }
        complete(hash)
    }

    /// Publishes a download's progress to the node's watchers, at most every `reportInterval`
    /// unless `force`.
    func updateProgress(_ hash: String, force: Bool = true) {
        let now = Self.now
        let report = lock.withLock { () -> [TransferProgress]? in
            guard var download = downloads[hash] else { return nil }
            progressLock.withLock {
                for placeholder in download.placeholders { progressTable[placeholder] = (download.done, download.size) }
            }
            guard force || now - download.lastReport >= Self.reportInterval else { return nil }
            download.lastReport = now
            downloads[hash] = download
            return download.placeholders.map { TransferProgress(transfer: $0, done: download.done, total: download.size) }
        }
        if let report, !report.isEmpty { node?.publishProgress(report) }
    }
}

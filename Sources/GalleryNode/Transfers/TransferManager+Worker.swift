import Foundation
import GalleryModel
import GalleryWire

/// The worker: asks peers for the bytes, retries, and enforces deadlines.
extension TransferManager {
    /// A connected peer that can be asked for bytes.
    struct FetchPeer {
        let connection: Connection
        let replica: ReplicaID
        let name: String
        let maximumFrameSize: UInt32
    }

    /// What the worker decided under the lock and carries out after releasing it.
    struct Plan {
        var fetches: [(Connection, FetchRequest)] = []
        var opens: [String] = []
        var finishes: [(String, BlobWriter)] = []
        var completions: [String] = []
        var failures: [(placeholders: [OpID], reason: String)] = []
        var journal: [Transfer]?
    }

    /// Runs until `stop`: plans, acts, then sleeps until poked or for at most 200 ms.
    func workerLoop() {
        while true {
            let peers = node?.fetchPeers() ?? []
            let sources = lock.withLock { Set(transfers.values.map(\.source)) }
            let liveSources = node?.read { replica in sources.filter { replica.location(of: $0) != nil } } ?? []
            guard let plan = lock.withLock({ running ? makePlan(peers: peers, liveSources: Set(liveSources)) : nil }) else {
                return
            }
            carryOut(plan)
            lock.withLock {
                if running && !poked { _ = lock.wait(until: Date().addingTimeInterval(0.2)) }
                poked = false
            }
        }
    }

    /// Decides the next steps of every transfer. Caller holds `lock`.
    private func makePlan(peers: [FetchPeer], liveSources: Set<OpID>) -> Plan {
        var plan = Plan()
        let now = Self.now
        let date = Date()
        var expired: [OpID] = []
        for transfer in transfers.values where transfer.deadline <= date && failureReasons[transfer.placeholder] == nil {
            expired.append(transfer.placeholder)
        }
        if !expired.isEmpty {
            plan.failures.append((expired.sorted(), "timed out: the bytes did not arrive before the deadline"))
        }
        // A peer serves at most `Connection.maximumServedFetches` fetches at once on a connection
        // and refuses more (retried only a second later): ask no more of it than that. The
        // downloads left waiting for a slot are asked in drop order once fetches end (each end
        // pokes the worker).
        var fetching: [Int: Int] = [:]
        for download in downloads.values {
            if case .fetching(let connection, _, _, _) = download.phase { fetching[connection.id, default: 0] += 1 }
        }
        let order = downloads.keys.sorted { a, b in
            switch (downloads[a]?.placeholders.min(), downloads[b]?.placeholders.min()) {
            case let (first?, second?): first < second
            case (nil, _): false
            case (_, nil): true
            }
        }
        for hash in order {
            guard var download = downloads[hash] else { continue }
            defer { downloads[hash] = download }
            guard case .waiting(let until) = download.phase, until <= now else { continue }
            if blobs.contains(hash) {
                // The bytes arrived another way (another download, an `add`): nothing to fetch.
                download.phase = .finishing
                plan.completions.append(hash)
                continue
            }
            guard let writer = download.writer else {
                download.phase = .opening
                plan.opens.append(hash)
                continue
            }
            let candidates = peers.filter { !download.refusedBy.contains($0.replica) }.sorted { a, b in
                let rankA = download.preferred.firstIndex(of: a.replica) ?? Int.max
                let rankB = download.preferred.firstIndex(of: b.replica) ?? Int.max
                return rankA != rankB ? rankA < rankB : a.connection.id < b.connection.id
            }
            if let peer = candidates.first {
                guard fetching[peer.connection.id, default: 0] < Connection.maximumServedFetches else { continue }
                fetching[peer.connection.id, default: 0] += 1
                nextRequest += 1
                let request = FetchRequest(
                    id: nextRequest, hash: SHA256.bytes(hex: hash) ?? [], offset: UInt64(writer.receivedCount), length: 0)
                requests[nextRequest] = hash
                download.phase = .fetching(peer.connection, request: nextRequest, peer: peer.replica, name: peer.name)
                plan.fetches.append((peer.connection, request))
            } else if !peers.isEmpty && download.placeholders.allSatisfy({ !liveSources.contains(transfers[$0]?.source ?? $0) }) {
                // Rule 13: the source is gone and no connected peer holds the bytes.
                download.phase = .finishing
                plan.failures.append((download.placeholders, "the source item was deleted and no connected peer holds its bytes"))
            } else {
                // Whoever holds the bytes is not connected now: ask everyone again a little later.
                download.refusedBy = []
                download.phase = .waiting(until: now + (peers.isEmpty ? 250_000_000 : 1_000_000_000))
            }
        }
        if journalDirty {
            journalDirty = false
            plan.journal = Array(transfers.values)
        }
        return plan
    }

    /// Carries out a plan, without holding `lock`.
    private func carryOut(_ plan: Plan) {
        for (connection, request) in plan.fetches { connection.send(.fetch(request)) }
        for hash in plan.opens { open(hash) }
        for hash in plan.completions { complete(hash) }
        for (placeholders, reason) in plan.failures { fail(placeholders, reason: reason) }
        if let journal = plan.journal { saveJournal(journal) }
    }

    /// Opens (or resumes) the partial file of a download, then lets the worker ask a peer.
    private func open(_ hash: String) {
        guard let size = lock.withLock({ downloads[hash]?.size }) else { return }
        let writer: BlobWriter
        do {
            writer = try blobs.makeWriter(expecting: hash, size: size)
        } catch .transferInProgress {
            lock.withLock { downloads[hash]?.phase = .waiting(until: Self.now + 200_000_000) }
            return
        } catch {
            fail(lock.withLock { downloads[hash]?.placeholders ?? [] }, reason: "cannot store the bytes: \(error.localizedDescription)")
            return
        }
        let finished = lock.withLock { () -> Bool? in
            guard var download = downloads[hash], download.writer == nil else { return nil }
            download.writer = writer
            download.done = writer.receivedCount
            download.checkpointed = download.done
            let finished = download.done == download.size
            download.phase = finished ? .finishing : .waiting(until: 0)
            downloads[hash] = download
            poked = true
            return finished
        }
        switch finished {
        case nil: writer.suspend()
        case true?: finish(hash, writer)
        case false?: updateProgress(hash)
        }
    }
}

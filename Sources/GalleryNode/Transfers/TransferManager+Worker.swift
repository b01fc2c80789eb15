import Foundation
import GalleryCrypto
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
        var cancels: [(Connection, UInt64)] = []
        var opens: [String] = []
        var finishes: [(String, any BlobSink)] = []
        var completions: [String] = []
        var failures: [(placeholders: [OpID], reason: String)] = []
    }

    /// How often a pass runs while transfers are in flight and nothing else asks for one
    /// (nanoseconds): deadlines, stalled fetches and retries are checked this often.
    static let passInterval: UInt64 = 200_000_000

    /// Queues a pass on `passLane` unless one is queued or running (that one runs again when it
    /// ends). Caller holds `lock`.
    func requestPass() {
        poked = true
        guard running, !passQueued else { return }
        passQueued = true
        passLane.async { [self] in runPass() }
    }

    /// One pass, on `passLane`: plans and acts, then queues the next pass if something changed
    /// meanwhile, or sets a timer on the node's clock for one in `passInterval` while transfers are
    /// in flight. Idle, nothing runs until work comes (every path that adds a transfer or a
    /// download requests a pass): an idle node wakes for nothing here.
    func runPass() {
        // Nothing to fetch: no plan to make, and no list of peers asked of the node's loop (an
        // idle node's peers are many).
        let (idle, stopped) = lock.withLock { () -> (Bool, Bool) in
            poked = false
            return (transfers.isEmpty && downloads.isEmpty, !running)
        }
        if !stopped && !idle {
            let peers = node?.fetchPeers() ?? []
            let sources = lock.withLock { Set(transfers.values.map(\.source)) }
            let liveSources = node?.read { replica in sources.filter { replica.location(of: $0) != nil } } ?? []
            if let plan = lock.withLock({ running ? makePlan(peers: peers, liveSources: Set(liveSources)) : nil }) {
                carryOut(plan)
            }
        }
        let timer = lock.withLock { () -> Bool in
            passQueued = false
            guard running else { return false }
            if poked {
                requestPass()
                return false
            }
            guard !(transfers.isEmpty && downloads.isEmpty), !passTimerSet else { return false }
            passTimerSet = true
            return true
        }
        guard timer else { return }
        let tick: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            lock.withLock {
                passTimerSet = false
                requestPass()
            }
        }
        if let node { node.scheduleTimer(after: Self.passInterval, tick) } else { clock.schedule(after: Self.passInterval, tick) }
    }

    /// Decides the next steps of every transfer. Caller holds `lock`.
    private func makePlan(peers: [FetchPeer], liveSources: Set<OpID>) -> Plan {
        var plan = Plan()
        let now = uptime
        let date = calendarNow
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
        // Bytes asked for or received and not yet stored, over every download: a new fetch starts
        // only below `backlogBytes`, so that a drag of many small items (each fetched whole in one
        // request, its slot free again before its bytes are stored) cannot queue the whole drag in
        // memory when the network outruns the disk; the drop order is kept (`order`).
        var unstored = 0
        for download in downloads.values {
            if case .fetching(let connection, _, _, _) = download.phase { fetching[connection.id, default: 0] += 1 }
            unstored += download.unstoredBytes
        }
        fetchesHeldBack = false
        // Each download's rank is read once (not in every comparison of the sort: a plan is made
        // after every chunk stored while fetches are held back, over every download of the drag).
        let order = downloads.map { hash, download in
            // Bytes a reader waits for (a page, an export) take a free slot before a drag's.
            (hash: hash, read: !download.demanders.isEmpty, first: download.placeholders.min())
        }.sorted { a, b in
            if a.read != b.read { return a.read }
            return switch (a.first, b.first) {
            case let (first?, second?): first < second
            case (nil, _): false
            case (_, nil): true
            }
        }.map(\.hash)
        for hash in order {
            guard var download = downloads[hash] else { continue }
            if answerIfImpatient(&download, now: now) { downloads[hash] = download }
            if !download.isWanted(at: date) {
                dropUnwanted(hash)
                continue
            }
            defer { if downloads[hash] != nil { downloads[hash] = download } }
            if case .fetching(let connection, let request, _, _) = download.phase {
                if let cancel = stalled(&download, connection: connection, request: request, now: now) { plan.cancels.append(cancel) }
                continue
            }
            guard case .waiting(let until) = download.phase, until <= now else { continue }
            if unstored >= backlogBytes {
                // No fetch can start in this plan: the rest of the drag waits for the next one
                // (each chunk stored pokes the worker) without a look at the disk each, which made
                // a plan cost a `stat` per waiting download, a drag of n items n² of them.
                fetchesHeldBack = true
                continue
            }
            if blobs.contains(hash) {
                // The bytes arrived another way (another download, an `add`): nothing to fetch.
                download.phase = .finishing
                plan.completions.append(hash)
                continue
            }
            if !mismatchedHolders.isEmpty, let suspects = mismatchedHolders.suspects(of: hash, now: now) {
                // Peers that sent other bytes for this hash before, in an earlier download: not asked again.
                download.mismatchedBy.formUnion(suspects.replicas)
                if download.mismatch == nil { download.mismatch = suspects.reason }
            }
            let candidates = peers.filter {
                !download.refusedBy.contains($0.replica) && !download.mismatchedBy.contains($0.replica)
            }.sorted { a, b in
                let rankA = download.preferred.firstIndex(of: a.replica) ?? Int.max
                let rankB = download.preferred.firstIndex(of: b.replica) ?? Int.max
                return rankA != rankB ? rankA < rankB : a.connection.id < b.connection.id
            }
            if candidates.isEmpty && download.placeholders.isEmpty {
                // A relay or the readers asked every connected peer once (or no peer is
                // connected): none has the bytes, and the readers are told so now.
                answerUnheld(&download, peers: peers)
                downloads[hash] = download
                dropUnwanted(hash)
                continue
            }
            guard download.writer != nil else {
                download.phase = .opening
                plan.opens.append(hash)
                continue
            }
            if let peer = candidates.first {
                guard fetching[peer.connection.id, default: 0] < Connection.maximumServedFetches else { continue }
                guard unstored < backlogBytes else {
                    fetchesHeldBack = true
                    continue
                }
                fetching[peer.connection.id, default: 0] += 1
                let request = makeRequest(for: &download, from: download.done)
                unstored += download.requestEnd - download.done
                download.phase = .fetching(peer.connection, request: request.id, peer: peer.replica, name: peer.name)
                download.noteActivity(on: peer.connection, now: now)
                plan.fetches.append((peer.connection, request))
            } else if !peers.isEmpty && download.refusedBy.union(download.mismatchedBy).isSuperset(of: download.preferred) {
                // Every connected peer, the nodes that added the items among them, said it does not
                // hold the bytes (or sent bytes of another hash): no one does (rule 13 when the
                // source was deleted meanwhile).
                answerUnheld(&download, peers: peers)
                let deleted = download.placeholders.allSatisfy { !liveSources.contains(transfers[$0]?.source ?? $0) }
                download.phase = .finishing
                plan.failures.append((download.placeholders, download.mismatch ?? (deleted
                    ? "the source item was deleted and no peer holds its bytes"
                    : "no peer holds the bytes, not even the node that added the item")))
            } else {
                // Readers do not wait for the adding nodes to come back: they are told now.
                answerUnheld(&download, peers: peers)
                // The nodes that added the items are not connected now (a source node that died is
                // waited for until the deadline): ask everyone again a little later.
                download.refusedBy = []
                download.phase = .waiting(until: now + (peers.isEmpty ? 250_000_000 : 1_000_000_000))
            }
        }
        return plan
    }

    /// The fetch of the chunk at `offset` of a download, registered as open. Caller holds `lock`.
    ///
    /// Each fetch asks for `requestLength` bytes (a few chunks); the next is asked for as soon as
    /// the last of them arrives, before it is hashed. So at most one fetch's bytes of a download
    /// are on their way at once, and an op or a heartbeat sent meanwhile waits behind at most
    /// those, whatever the blob's size; socket buffers never fill with bytes the receiver has not
    /// asked for yet.
    func makeRequest(for download: inout Download, from offset: Int) -> FetchRequest {
        nextRequest += 1
        requests[nextRequest] = download.hash
        download.nextDeferred = false
        let length = min(requestLength, download.size - offset)
        download.requestEnd = offset + length
        return FetchRequest(
            id: nextRequest, hash: SHA256.bytes(hex: download.hash) ?? [], offset: UInt64(offset), length: UInt64(length))
    }

    /// Whether the open fetch of a download is lost: nothing for `stallTimeout` on a link that
    /// carried no more than heartbeats meanwhile (a slow or busy link is not a lost fetch: a chunk
    /// cut short by a cancel would be sent again from its start, and a slow link never finish). A lost fetch is forgotten and the download waits to
    /// ask again (from the bytes held, of the same peer or another); returns the cancel to send.
    /// Caller holds `lock`.
    private func stalled(_ download: inout Download, connection: Connection, request: UInt64, now: UInt64) -> (Connection, UInt64)? {
        if download.nextDeferred || connection.byteCounts.received - download.receivedAtActivity >= Self.busyLinkBytes {
            download.noteActivity(on: connection, now: now)
            return nil
        }
        guard now > download.lastActivity, now - download.lastActivity >= Self.stallTimeout else { return nil }
        requests[request] = nil
        download.phase = .waiting(until: 0)
        poked = true
        node?.configuration.log("\(node?.configuration.name ?? "?"): fetch of \(download.hash.prefix(12)) stalled at byte "
            + "\(download.done) for \((now - download.lastActivity) / 1_000_000) ms; asking again")
        return (connection, request)
    }

    /// Carries out a plan, without holding `lock`.
    private func carryOut(_ plan: Plan) {
        for (connection, request) in plan.cancels { connection.send(.cancel(id: request)) }
        for (connection, request) in plan.fetches { connection.send(.fetch(request)) }
        for hash in plan.opens { open(hash) }
        for hash in plan.completions { complete(hash) }
        for (placeholders, reason) in plan.failures { fail(placeholders, reason: reason) }
        flushJournal()
    }

    /// Opens (or resumes) the partial file of a download, then lets the worker ask a peer.
    private func open(_ hash: String) {
        guard let size = lock.withLock({ downloads[hash]?.size }) else { return }
        let writer: any BlobSink
        do {
            writer = try blobs.makeWriter(expecting: hash, size: size)
        } catch .transferInProgress {
            lock.withLock { downloads[hash]?.phase = .waiting(until: uptime + 200_000_000) }
            return
        } catch {
            let reason = error.localizedDescription
            fail(lock.withLock { downloads[hash]?.placeholders ?? [] }, reason: "cannot store the bytes: \(reason)") { [self] in
                lock.withLock { dropUnwanted(hash, failure: .storage(reason)) }
            }
            return
        }
        let finished = lock.withLock { () -> Bool? in
            guard var download = downloads[hash], download.writer == nil else { return nil }
            download.writer = writer
            download.stage = workers.makeLane("download")
            download.done = writer.receivedCount
            download.written = download.done
            download.checkpointed = download.done
            let finished = download.done == download.size
            download.phase = finished ? .finishing : .waiting(until: 0)
            downloads[hash] = download
            requestPass()
            return finished
        }
        switch finished {
        case nil: writer.suspend()
        case true?: finish(hash, writer)
        case false?: updateProgress(hash)
        }
    }
}

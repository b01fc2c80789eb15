import GalleryModel
import GalleryWire

/// Relay without floods (protocol.md, "Relay"): each durable op goes to a live peer only when the
/// peer does not hold it already (`RelayPolicy.known`) and the link is eager for the op's origin;
/// on the other links it is announced in a periodic `ihave`. Duplicates on a live link prune it
/// (per origin), `graft` heals a tree that lost a link. All on the loop.
extension SyncNode {
    /// Sends durable batches to the live peers by their relay policy, straight from the replica's
    /// encoded log: adjacent positions a peer gets go out together, in frames within its limit,
    /// each run encoded once for all the peers that get it. A peer that takes `ops_compact` gets
    /// the ops it is due encoded with its connection's tables instead (`CompactOpsWriter`).
    func relay(_ batches: [InFlight]) {
        var framesByRun: [String: [Frame]] = [:]
        let now = clock.now
        let piggybackSpacing = UInt64(max(configuration.announcementInterval.nanoseconds, 0)) * 2 / 5
        for (id, session) in sessions where session.live {
            guard let connection = connections[id] else { continue }
            let limit = min(configuration.catchUpBatchBytes, Int(connection.peer?.maximumFrameSize ?? FrameLimits.minimum))
            var policy = session.relay
            var runs: [Range<Int>] = []
            let compact = session.compactOps
            var pushed: [Op] = []
            for batch in batches where batch.source != id {
                let first = batch.end - batch.ops.count
                for (offset, op) in batch.ops.enumerated() {
                    switch policy.route(op.id) {
                    case .skip: continue
                    case .announce: policy.announce(op.id)
                    case .push:
                        policy.holds(op.id)
                        if compact != nil {
                            pushed.append(op)
                            continue
                        }
                        let position = first + offset
                        if let last = runs.last, last.upperBound == position {
                            runs[runs.count - 1] = last.lowerBound..<position + 1
                        } else {
                            runs.append(position..<position + 1)
                        }
                    }
                }
            }
            if let compact, !pushed.isEmpty {
                for frame in compact.frames(for: pushed, maximumBytes: limit) { connection.send(frame, priority: .ops) }
            }
            for run in runs {
                let key = "\(run.lowerBound)-\(run.upperBound)-\(limit)"
                let frames = framesByRun[key]
                    ?? replica.encodedOps(atLogPositions: run, maximumBytes: limit).map { Frame(.ops, payload: $0) }
                framesByRun[key] = frames
                for frame in frames { connection.send(frame, priority: .ops) }
            }
            // What the link's next relay pass would announce or prune goes now, in the same
            // record as the ops (a frame header instead of a record's header and tag), unless
            // the link announced less than `piggybackSpacing` ago: on a busy link, pushes come
            // every few milliseconds, and announcing with each would undo the batching. A `prune`
            // due goes with them in any case: a link that pushes is busy, and each flush until
            // the peer stops brings it more duplicates.
            if !runs.isEmpty || !pushed.isEmpty {
                if now >= policy.lastAnnounced + piggybackSpacing {
                    sendAnnouncements(&policy, on: connection, now: now)
                } else {
                    sendPrunes(&policy, on: connection)
                }
            }
            sessions[id]?.relay = policy
        }
    }

    /// Sends the `prune` and `ihave` queued for one link, if any.
    func sendAnnouncements(_ policy: inout RelayPolicy, on connection: Connection, now: UInt64) {
        policy.lastAnnounced = now
        sendPrunes(&policy, on: connection)
        if let announcement = policy.takeAnnouncement() {
            connection.send(.ihave(announcement))
            relayCountsOnLoop.announcementsSent += 1
        }
    }

    /// Sends the `prune`s queued for one link, if any.
    func sendPrunes(_ policy: inout RelayPolicy, on connection: Connection) {
        let prunes = policy.takePrunes()
        guard !prunes.isEmpty else { return }
        connection.send(.prune(prunes))
        relayCountsOnLoop.prunesSent += 1
    }

    /// How long a new session's first `sync_request` waits at most for another peer's catch-up.
    static let deferredRequestLimit: UInt64 = 10_000_000_000

    /// Starts a new session's sync: sends its first `sync_request`, unless another peer is
    /// sending this node the catch-up of its own first one (a new or returning node joining a
    /// mesh): then this one waits for that catch-up to end, and asks for what is still missing,
    /// so that the log crosses once, not once per peer (protocol.md, "Relay").
    func beginSync(with connection: Connection, now: UInt64) {
        let busy = sessions.contains { $0.key != connection.id && $0.value.relay.firstCatchUpPending }
        if busy && configuration.relayTrees {
            sessions[connection.id]?.relay.deferredRequestSince = now
            return
        }
        sessions[connection.id]?.relay.firstCatchUpPending = true
        requestCatchUp(from: connection)
    }

    /// How long after the first catch-up's `caught_up` the held-back requests still wait. That
    /// `caught_up` left its sender queued behind up to two catch-up frames (2 MiB), and the ops
    /// the sender applied meanwhile follow it; a request sent at once names a vector that lags
    /// them, and every other peer answers it with those ops, which the first sends too (a few
    /// percent of a join's ops came twice per peer at 3,500 ops/s, `gallery-bench catchup`).
    static let joinSettle: UInt64 = 500_000_000

    /// Sends the first `sync_request` of the sessions that waited, once no first catch-up is
    /// pending any more and `joinSettle` has passed since the last ended (or they waited
    /// `deferredRequestLimit`). On the loop.
    func releaseDeferredRequests(now: UInt64) {
        let settling = liveness.joinSettleUntil.map { now < $0 } ?? false
        let pending = settling || sessions.contains { $0.value.relay.firstCatchUpPending && connections[$0.key] != nil }
        for (id, session) in sessions {
            guard let since = session.relay.deferredRequestSince, let connection = connections[id] else { continue }
            guard !pending || now - since >= Self.deferredRequestLimit else { continue }
            sessions[id]?.relay.deferredRequestSince = nil
            requestCatchUp(from: connection)
        }
    }

    /// Sends `sync_request` with the replica's version vector: the peer answers with what it lacks.
    func requestCatchUp(from connection: Connection) {
        sessions[connection.id]?.relay.askedCatchUp()
        connection.send(.syncRequest(replica.version))
    }

    /// Takes an `ihave`, `graft` or `prune` from a peer. On the loop.
    func receiveRelay(_ message: Message, from connection: Connection) {
        guard sessions[connection.id] != nil else { return }
        switch message {
        case .ihave(let version):
            sessions[connection.id]?.relay.learned(version)
        case .prune(let origins):
            sessions[connection.id]?.relay.pruned(origins)
        case .graft(let version, let origins):
            sessions[connection.id]?.relay.grafted(version, origins: origins)
            startCatchUp(connection.id, from: version)
        default:
            break
        }
    }

    /// Ops arrived from a peer (`ops`): it holds them; those this node held already (counted per
    /// origin) prune the link for their origins (unless they answer a catch-up), with the link's
    /// next announcement or at once on a busy link (`RelayPolicy.duplicatesArrived`). On the loop.
    func noteReceived(_ ops: [Op], duplicates: [ReplicaID: Int], from connection: Connection) {
        guard var policy = sessions[connection.id]?.relay else { return }
        for op in ops { policy.holds(op.id) }
        relayCountsOnLoop.opsFramesReceived += 1
        relayCountsOnLoop.opsReceived += ops.count
        // Most prunes go with the link's next announcement, one record for both; several
        // duplicates of an origin, in this frame or since, send it at once.
        let prune = duplicates.isEmpty ? [] : policy.duplicatesArrived(
            Set(duplicates.keys), several: Set(duplicates.compactMap { $0.value > 1 ? $0.key : nil }))
        sessions[connection.id]?.relay = policy
        if !prune.isEmpty {
            connection.send(.prune(prune))
            relayCountsOnLoop.prunesSent += 1
        }
    }

    /// The relay's share of the liveness pass: sends the `prune`s and `ihave` announcements queued
    /// since the last pass (one record per peer), and asks one peer holding announced ops this node still lacks after
    /// `graftTimeout` to push them (`graft`). On the loop.
    func relayPass(now: UInt64) {
        guard configuration.relayTrees else { return }
        releaseDeferredRequests(now: now)
        let timeout = UInt64(max(configuration.graftTimeout.nanoseconds, 1_000_000))
        let version = replica.version
        var candidate: (id: Int, since: UInt64, lacking: Set<ReplicaID>)?
        // A node being caught up (its first catch-up, the others' requests held back) lacks what
        // every peer holds: that catch-up brings it, no graft is due meanwhile.
        let joining = sessions.values.contains { $0.relay.firstCatchUpPending || $0.relay.deferredRequestSince != nil }
        let announcing = UInt64(max(configuration.announcementInterval.nanoseconds, 0))
        for id in sessions.keys.sorted() {
            guard var policy = sessions[id]?.relay, sessions[id]?.live == true, let connection = connections[id] else { continue }
            if now >= policy.lastAnnounced + announcing { sendAnnouncements(&policy, on: connection, now: now) }
            if !joining, let due = policy.dueGraft(version: version, now: now, timeout: timeout), due.since < (candidate?.since ?? .max) {
                candidate = (id, due.since, due.origins)
            }
            sessions[id]?.relay = policy
        }
        guard let candidate, now - liveness.lastGraft >= timeout, let connection = connections[candidate.id] else { return }
        liveness.lastGraft = now
        sessions[candidate.id]?.relay.grafting(candidate.lacking)
        connection.send(.graft(version, origins: candidate.lacking.sorted()))
        relayCountsOnLoop.graftsSent += 1
        let named = candidate.lacking.sorted().prefix(3).map(\.description).joined(separator: ", ")
        throttledLog("graft", "\(configuration.name): \(connection.peer?.name ?? "?") announced ops of \(named) missing here "
            + "for \((now - candidate.since) / 1_000_000) ms; asking it to push them (graft)")
    }
}

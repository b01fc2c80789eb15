import GalleryModel
import GalleryWire

/// Relay without floods (protocol.md, "Relay"): each durable op goes to a live peer only when the
/// peer does not hold it already (`RelayPolicy.known`) and the link is a branch of the relay tree
/// (`RelayTree`) or grafted; a lazy link is told, at most once per `announcementInterval`, the
/// total this node holds (`ihave_total`). A peer that a lazy link's total shows to lack ops grafts
/// that link. All on the loop.
extension SyncNode {
    /// Sends durable batches to the live peers by their relay policy, straight from the replica's
    /// encoded log: adjacent positions a peer gets go out together, in frames within its limit,
    /// each run encoded once for all the peers that get it. A peer that takes `ops_compact` gets
    /// the ops it is due encoded with its connection's tables instead (`CompactOpsWriter`).
    ///
    /// With `corking`, a link whose previous frames still wait in its outbox (a write in flight)
    /// gets these batches with the next flush instead, all in one frame (`SyncNode+RelayHold`).
    func relay(_ batches: [InFlight], corking: Bool = false, only link: Int? = nil) {
        var framesByRun: [String: [Frame]] = [:]
        let now = clock.now
        for (id, session) in sessions where session.live && (link == nil || link == id) {
            guard let connection = connections[id] else { continue }
            // Ops cross a link in log order: behind corked ones, these wait too.
            if corking && (relayHold.corked[id] != nil || connection.outbox.queuedBytes > 0) {
                corkRelay(batches, on: id)
                continue
            }
            let limit = min(configuration.catchUpBatchBytes, Int(connection.peer?.maximumFrameSize ?? FrameLimits.minimum))
            let branch = relayTree.isBranch(id, now: now)
            var policy = session.relay
            var runs: [Range<Int>] = []
            let compact = session.compactOps
            var pushed: [Op] = []
            for batch in batches where batch.source != id {
                let first = batch.end - batch.ops.count
                for (offset, op) in batch.ops.enumerated() {
                    switch policy.route(op.id, branch: branch) {
                    case .skip: continue
                    case .announce:
                        policy.owesAnnouncement = true
                        continue
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
            sessions[id]?.relay = policy
        }
    }

    /// How long a new session's first `sync_request` waits at most for another peer's catch-up.
    static let deferredRequestLimit: UInt64 = 10_000_000_000

    /// Starts a new session's sync: sends its first `sync_request`, unless another peer is
    /// sending this node the catch-up of its own first one (a new or returning node joining a
    /// mesh): then this one waits for that catch-up to end, and asks for what is still missing,
    /// so that the log crosses once, not once per peer (protocol.md, "Relay").
    func beginSync(with connection: Connection, now: UInt64) {
        let busy = sessions.contains { $0.key != connection.id && $0.value.relay.awaitsFirstCatchUp(now: now) }
        if busy && configuration.relayTrees {
            sessions[connection.id]?.relay.deferredRequestSince = now
            liveness.requestsDeferred = true
            return
        }
        sessions[connection.id]?.relay.firstCatchUpPending = true
        sessions[connection.id]?.relay.firstCatchUpProgress = now
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
        guard liveness.requestsDeferred else { return }
        // One look at the sessions: those held back, and whether a first catch-up is pending.
        var held: [(id: Int, since: UInt64)] = []
        var pending = liveness.joinSettleUntil.map { now < $0 } ?? false
        for (id, session) in sessions {
            if let since = session.relay.deferredRequestSince { held.append((id, since)) }
            if !pending && session.relay.awaitsFirstCatchUp(now: now) && connections[id] != nil { pending = true }
        }
        var still = 0
        for (id, since) in held {
            guard let connection = connections[id], !pending || now - since >= Self.deferredRequestLimit else {
                still += 1
                continue
            }
            sessions[id]?.relay.deferredRequestSince = nil
            requestCatchUp(from: connection)
        }
        liveness.requestsDeferred = still > 0
    }

    /// Sends `sync_request` with the replica's version vector: the peer answers with what it lacks.
    func requestCatchUp(from connection: Connection) {
        sessions[connection.id]?.relay.askedCatchUp()
        connection.send(.syncRequest(replica.version))
    }

    /// Takes an `ihave`, `ihave_total`, `tree`, `graft` or `prune` from a peer. On the loop.
    func receiveRelay(_ message: Message, from connection: Connection) {
        guard sessions[connection.id] != nil else { return }
        switch message {
        case .ihave(let version):
            sessions[connection.id]?.relay.learned(version)
        case .ihaveTotal(let total):
            sessions[connection.id]?.relay.announced(total: total)
        case .tree(let beacon):
            guard configuration.relayTrees else { return }
            // Which links are branches may change: the relay's next pass looks at every session.
            liveness.relayLook.nextDue = 0
            switch relayTree.received(beacon, on: connection.id, now: clock.now) {
            case .changed:
                sendBeacons()
                // It left a parent that withholds for this one, which pushes only what
                // becomes durable from now on: what it held before comes by a catch-up.
                if relayTree.takeLeftAvoided(), let parent = relayTree.parent, let link = connections[parent] {
                    requestCatchUp(from: link)
                }
            case .answer: connection.send(.tree(relayTree.beacon))
            case .deposed:
                sendBeacons()
                catchUpAfterDeposition()
            case .none: break
            }
        case .prune:
            sessions[connection.id]?.relay.pruned()
        case .graft(let version, _):
            sessions[connection.id]?.relay.grafted(version)
            startCatchUp(connection.id, from: version)
        default:
            break
        }
    }

    /// A joining node (section 5, "Joining": other sessions' requests held back) grafts the peer
    /// that caught it up, unless it is a branch: until the held-back catch-ups are answered, no
    /// other peer sends it anything, and without the graft no op would come meanwhile. The graft
    /// ends like any other, at the first duplicate (the tree's branches bring them).
    func firstCatchUpEnded(on connection: Connection) {
        guard configuration.relayTrees, !relayTree.isBranch(connection.id, now: clock.now),
              sessions.values.contains(where: { $0.relay.deferredRequestSince != nil }) else { return }
        sessions[connection.id]?.relay.grafting()
        connection.send(.graft(replica.version, origins: []))
        relayCountsOnLoop.graftsSent += 1
    }

    /// A node being caught up (its first catch-up, the others' requests held back) lacks what
    /// every peer holds: that catch-up brings it, no graft is due meanwhile.
    func joining(now: UInt64) -> Bool {
        sessions.values.contains { $0.relay.awaitsFirstCatchUp(now: now) || $0.relay.deferredRequestSince != nil }
    }

    /// What the link to a session is in the relay tree, as `PeerStatus.relay` says it: `eager`
    /// for a branch that is neither (a peer without beacons, on another root, or lingering).
    func relayRole(of session: Int, _ policy: RelayPolicy) -> String? {
        guard configuration.relayTrees else { return nil }
        if relayTree.parent == session { return "parent" }
        if relayTree.isChild(session) { return "child" }
        if relayTree.isBranch(session, now: clock.now) { return "eager" }
        return policy.isGrafted ? "grafted" : "lazy"
    }

    /// Where this node stands in the relay tree: the root's replica ID and the links to it; nil
    /// with relay trees off.
    package var relayPlace: (root: ReplicaID, hops: UInt64)? {
        loop.sync { configuration.relayTrees ? (relayTree.root, relayTree.hops) : nil }
    }

    /// This node's relay parent's replica ID (nil at the root, while orphaned, or with relay
    /// trees off): the simulator follows the parents to check that they form a tree.
    package var relayParent: ReplicaID? {
        loop.sync { configuration.relayTrees ? relayTree.beacon.parent : nil }
    }

    /// Sends this node's beacon on every authenticated link (its place in the tree changed).
    func sendBeacons() {
        let beacon = Message.tree(relayTree.beacon)
        for id in sessionOrder { connections[id]?.send(beacon) }
        relayCountsOnLoop.beaconsSent += sessions.count
    }

    /// A session began: the tree learns its peer, and the peer where this node stands.
    func relayConnected(_ connection: Connection, peer: ReplicaID) {
        guard configuration.relayTrees else { return }
        relayTree.connected(connection.id, peer: peer)
        if relayTree.round > 0 { connection.send(.tree(relayTree.beacon)) }
    }

    /// A session ended: when it led to the parent, the tree takes another (or waits for the next round).
    func relayDisconnected(_ id: Int) {
        guard configuration.relayTrees, relayTree.disconnected(id, now: clock.now) else { return }
        sendBeacons()
    }

    /// Ops arrived from a peer (`ops`): it holds them; when some were held here already on a
    /// grafted link that is not a branch, the graft has done its work: the link is lazy again, on
    /// both ends (`prune`, naming the duplicates' origins). On the loop.
    func noteReceived(_ ops: [Op], duplicates: [ReplicaID: Int], from connection: Connection) {
        guard var policy = sessions[connection.id]?.relay else { return }
        for op in ops { policy.holds(op.id) }
        if policy.firstCatchUpPending { policy.firstCatchUpProgress = clock.now }
        relayCountsOnLoop.opsFramesReceived += 1
        relayCountsOnLoop.opsReceived += ops.count
        let prune = !duplicates.isEmpty && policy.receivedDuplicates(branch: relayTree.isBranch(connection.id, now: clock.now))
        sessions[connection.id]?.relay = policy
        watchRoot(ops, duplicates: duplicates, from: connection, policy)
        if prune {
            connection.send(.prune(duplicates.keys.sorted()))
            relayCountsOnLoop.prunesSent += 1
        }
    }

    /// The relay's share of the liveness pass: the tree's beat (a root's next round, a silent
    /// root given up), then on each lazy link the total this node holds when it changed and
    /// `announcementInterval` has passed since the link's last announcement, and a `graft` to
    /// one peer whose vector or total shows ops this node still lacks after `graftTimeout`. Runs
    /// before the pass's heartbeats, so that an announcement due on an idle link goes instead of
    /// its heartbeat. The sessions are scanned only when one was written, the total changed, the
    /// tree changed, or a decision falls due by time (`LivenessState.Look`): an idle pass costs
    /// nothing per session. On the loop.
    func relayPass(now: UInt64) {
        guard configuration.relayTrees else { return }
        releaseDeferredRequests(now: now)
        let beat = UInt64(max(configuration.beaconInterval.nanoseconds, 1_000_000))
        let wallMilliseconds = UInt64(max(0, configuration.environment.wallClock() * 1_000))
        if relayTree.tick(now: now, interval: beat, timeout: 3 * beat, wallMilliseconds: wallMilliseconds) {
            sendBeacons()
            liveness.relayLook.nextDue = 0
        }
        let total = durability.total
        guard liveness.relayLook.isDue(sessionsChanges: sessionsChanges, total: total, now: now) else { return }
        let timeout = UInt64(max(configuration.graftTimeout.nanoseconds, 1_000_000))
        var candidate: (id: Int, since: UInt64, lacking: [ReplicaID])?
        let announcing = UInt64(max(configuration.announcementInterval.nanoseconds, 0))
        // Once per pass, not per session: the loop changes no session's first catch-up or
        // deferred request, and asking per session made the pass quadratic in the peers.
        let joining = joining(now: now)
        // While joining, grafts wait on the first catch-up, whose stall is a matter of time.
        var nextDue = joining ? now &+ 1 : relayTree.lingerEnd(after: now) ?? .max
        assert(sessionOrder.count == sessions.count, "every session is in the order, once")
        for id in sessionOrder {
            guard let session = sessions[id], session.live, let connection = connections[id] else { continue }
            var policy = session.relay
            let branch = relayTree.isBranch(id, now: now)
            if now >= policy.lastAnnounced + announcing, let total = policy.takeAnnouncement(total: total, branch: branch) {
                policy.lastAnnounced = now
                connection.send(.ihaveTotal(total))
                relayCountsOnLoop.announcementsSent += 1
            }
            if !joining, let due = policy.dueGraft(version: durability.version, total: total, now: now, timeout: timeout),
               due.since < (candidate?.since ?? .max) {
                candidate = (id, due.since, due.origins)
            }
            nextDue = min(nextDue, policy.nextDecision(total: total, branch: branch, announcing: announcing, graftTimeout: timeout))
            if policy != session.relay { sessions[id]?.relay = policy }
        }
        defer { liveness.relayLook = LivenessState.Look(sessionsChanges: sessionsChanges, total: total, nextDue: nextDue) }
        guard let candidate, now - liveness.lastGraft >= timeout, let connection = connections[candidate.id] else { return }
        liveness.lastGraft = now
        sessions[candidate.id]?.relay.grafting()
        connection.send(.graft(replica.version, origins: candidate.lacking))
        relayCountsOnLoop.graftsSent += 1
        let named = candidate.lacking.isEmpty
            ? "ops (by its total)" : "ops of " + candidate.lacking.prefix(3).map(\.description).joined(separator: ", ")
        throttledLog("graft", "\(configuration.name): \(connection.peer?.name ?? "?") announced \(named) missing here "
            + "for \((now - candidate.since) / 1_000_000) ms; asking it to push them (graft)")
    }
}

extension SyncNode {
    /// Shows the relay tree ops that arrived live (not a catch-up's answer, not while joining: those
    /// bring what the parent is not asked for): a node whose parent withholds leaves it, a child of
    /// a root that withholds deposes it, and sends its new beacon (`RelayTree.receivedOps`). On the loop.
    func watchRoot(_ ops: [Op], duplicates: [ReplicaID: Int], from connection: Connection, _ policy: RelayPolicy) {
        guard configuration.relayTrees, configuration.deposesWithholdingRoot || configuration.leavesLaggingParent,
              relayTree.parent != nil else { return }
        let now = clock.now
        let arrived = ops.count - duplicates.values.reduce(0, +)
        // Only a node with a parent watches, and only new ops count: the look at every session
        // (joining) is theirs alone.
        let new = arrived > 0 && policy.awaitedCatchUps == 0 && !joining(now: now) ? arrived : 0
        let before = (root: relayTree.root, parent: relayTree.parent.flatMap { relayTree.peers[$0] }, left: relayTree.parentsLeft)
        let changed = relayTree.receivedOps(on: connection.id, new: new, origins: ops.lazy.map(\.id.replica), now: now)
        if relayTree.parentsLeft != before.left {
            relayCountsOnLoop.parentsLeft += 1
            if changed, let parent = relayTree.parent, let link = connections[parent] { requestCatchUp(from: link) }
            throttledLog("left", "\(configuration.name): relay parent \(before.parent?.description ?? "?") was first for fewer "
                + "than 1 in \(ParentWatch.share + 1) new ops over \(ParentWatch.silence / 1_000_000) ms while "
                + "\(ParentWatch.evidence) or more came another way; left it for "
                + (changed ? relayTree.beacon.parent.map { "\($0)" } ?? "?" : "the first other peer of the next round"))
        }
        guard changed else { return }
        liveness.relayLook.nextDue = 0
        sendBeacons()
        guard relayTree.root != before.root else { return }
        relayCountsOnLoop.rootsDeposed += 1
        throttledLog("deposed", "\(configuration.name): the relay tree's root was first for fewer than 1 in "
            + "\(ParentWatch.share + 1) new ops over \(ParentWatch.silence / 1_000_000) ms while \(ParentWatch.evidence) "
            + "or more came another way; deposed it, now following \(relayTree.root)")
        catchUpAfterDeposition()
    }

    /// This node left a deposed root's tree: under that root its subtrees met only where a
    /// border node grafted, so ops that one side holds and the other lacks are in flight
    /// nowhere, and a branch of the new tree does not push what was held before it became one.
    /// Every peer but the deposed one is asked (`sync_request`) for what this node lacks; each
    /// asks in turn as it follows. Once per deposition. On the loop.
    func catchUpAfterDeposition() {
        let now = clock.now
        for id in sessionOrder {
            guard sessions[id] != nil, let connection = connections[id],
                  let peer = relayTree.peers[id], !relayTree.isDeposed(peer, now: now), !relayTree.isAvoided(id, now: now) else { continue }
            requestCatchUp(from: connection)
        }
    }
}

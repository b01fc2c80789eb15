import Foundation
import GalleryIO
import GalleryModel
import GalleryWire

/// The loop's side of the coordinator: the accessors of the state the loop owns, and what the loop
/// does with what its components return (signatures, durability, the relay hold, liveness).
///
/// Every access to the loop's state checks, in debug builds, that it runs on the node's loop: the
/// replica and the components are confined to the inbox, and a call from an event loop or a
/// command's thread that forgot to hop is caught where it happens, not as a rare race. A write to
/// the replica, the connections, the sessions, durability or the addresses also wakes a node
/// whose liveness passes slowed down while nothing was due (`wakeLiveness`).
extension SyncNode {
    /// Stops a debug build when the caller is not on the node's loop.
    @inline(__always)
    func assertOnLoop(_ function: StaticString = #function) {
        assert(loop.isCurrent, "\(function) touches the loop's state off the loop")
    }

    // MARK: The loop's state (each documented at its stored property, `SyncNode`)

    package var replica: Replica {
        _read { assertOnLoop(); yield _replica }
        _modify { assertOnLoop(); wakeLiveness(); yield &_replica }
    }
    var peerRegistry: PeerRegistry {
        _read { assertOnLoop(); yield _peerRegistry }
        _modify { assertOnLoop(); wakeLiveness(); yield &_peerRegistry }
    }
    /// The connections by ID (`PeerRegistry.connections`).
    var connections: [Int: Connection] {
        _read { yield peerRegistry.connections }
        _modify { yield &peerRegistry.connections }
    }
    /// A write that changed a session wakes liveness.
    var peerSessions: PeerSessions {
        _read { assertOnLoop(); yield _peerSessions }
        _modify {
            assertOnLoop()
            let before = _peerSessions.changes
            yield &_peerSessions
            if _peerSessions.changes != before { wakeLiveness() }
        }
    }
    /// The sessions by connection ID (`PeerSessions.sessions`): every write counts in `sessionsChanges`.
    var sessions: [Int: PeerSessions.Session] {
        _read { yield peerSessions.sessions }
        _modify { yield &peerSessions.sessions }
    }
    /// The keys of `sessions`, ascending, kept as sessions begin and end.
    var sessionOrder: [Int] { peerSessions.order }
    /// How many times `sessions` was written.
    var sessionsChanges: UInt64 { peerSessions.changes }
    var liveness: Liveness {
        _read { assertOnLoop(); yield _liveness }
        _modify { assertOnLoop(); yield &_liveness }
    }
    var storageHealth: StorageHealth {
        _read { assertOnLoop(); yield _storageHealth }
        _modify { assertOnLoop(); yield &_storageHealth }
    }
    /// Why ops cannot be stored right now (a full disk, a read-only directory), if so: local
    /// changes are refused, and nothing more is sent to peers until storing works again.
    package var storageFault: String? {
        _read { assertOnLoop(); yield _storageHealth.fault }
        _modify { assertOnLoop(); yield &_storageHealth.fault }
    }
    var peerKeys: PeerKeyBook {
        _read { assertOnLoop(); yield _peerKeys }
        _modify { assertOnLoop(); yield &_peerKeys }
    }
    var durability: Durability {
        _read { assertOnLoop(); yield _durability }
        _modify { assertOnLoop(); wakeLiveness(); yield &_durability }
    }
    var relayTree: RelayTree {
        _read { assertOnLoop(); yield _relayTree }
        _modify { assertOnLoop(); yield &_relayTree }
    }
    var addresses: PeerDirectory {
        _read { assertOnLoop(); yield _addresses }
        _modify { assertOnLoop(); wakeLiveness(); yield &_addresses }
    }
    var relayCountsOnLoop: RelayCounts {
        _read { assertOnLoop(); yield _relayCountsOnLoop }
        _modify { assertOnLoop(); yield &_relayCountsOnLoop }
    }
    var relayHold: RelayHold {
        _read { assertOnLoop(); yield _relayHold }
        _modify { assertOnLoop(); yield &_relayHold }
    }

    // MARK: Signed ops (protocol.md, "Signed ops"; `Replica+Signatures`)

    /// The ops of a frame from `connection` that may go to the replica now (those whose
    /// signature is checked, or will be when their predecessor arrives). When one is forged the
    /// connection is closed, and what its author's signatures cover before it is all that is
    /// given back. On the loop.
    func checkSignatures(_ ops: [Op], from connection: Connection) -> [Op] {
        guard let checked = replica.checkSignatures(frame: ops, from: connection.id) else { return ops }
        if let (op, reason) = checked.forged { reportForgedOp(op.id, reason: reason, on: [connection]) }
        return checked.ops
    }

    /// Reports the held ops the replica refused as forged when their predecessors arrived, and
    /// closes the connections that sent them. On the loop.
    func reportForgedHeldOps() {
        for forged in replica.takeForgedHeldOps() {
            guard case .forgedOp(let id, let reason) = forged.error else { continue }
            reportForgedOp(id, reason: reason, on: forged.sources.compactMap { connections[$0] })
        }
    }

    /// Logs a forged op and closes the connections that sent it with `forged_op`.
    func reportForgedOp(_ id: OpID, reason: String, on senders: [Connection]) {
        for connection in senders {
            configuration.log("\(configuration.name): FORGED OP \(id) from \(connection.peer?.label ?? connection.remote): "
                + "\(reason); refused, connection closed")
            connection.close(.forgedOp, "op \(id) is not signed by its replica's key: \(reason)")
        }
    }

    /// `Replica.countingUnsignedReplicasAsHeld`: what a catch-up's version leaves out. On the loop.
    func withoutUnsignedReplicas(_ version: VersionVector) -> VersionVector {
        replica.countingUnsignedReplicasAsHeld(version)
    }

    /// Logs, once per peer and replica, a catch-up batch to `connection` that carries every
    /// signature of `replicas`' ops because their last one does not cover this node's log (a log
    /// damaged or forged on disk). On the loop.
    func reportUncoveredCatchUp(_ replicas: [ReplicaID], to connection: Connection) {
        let peer = connection.peer?.label ?? connection.remote
        for uncovered in replica.firstUncoveredCatchUps(replicas, to: peer) {
            configuration.log("\(configuration.name): SIGNATURES DO NOT COVER THIS NODE'S LOG: replica \(uncovered) "
                + "(a damaged or forged log); its catch-up to \(peer) carries every signature this node holds for it, "
                + "so that the peer takes the ops they cover and refuses the rest (logged once per peer and replica)")
        }
    }

    /// Forgets the ops a closed connection left waiting for a signature. On the loop.
    func forgetUnsignedTail(of connection: Connection) {
        replica.forgetUnsignedTail(of: connection.id)
    }

    // MARK: Identity (protocol.md, "Node identity"; `PeerKeyBook`)

    /// Records the key `peer` proved on `connection`; a name known under another key is reported
    /// on the log and in `status`, and the peer is kept apart (it is another node). On the loop.
    func recordKey(of peer: PeerIdentity, on connection: Connection) {
        if let conflict = peerKeys.record(peer, dialed: connection.dialed) {
            configuration.log("\(configuration.name): IDENTITY CONFLICT: \(conflict) (\(connection.remote))")
        }
    }

    /// The node a dial to `endpoint` means to reach (`PeerKeyBook.expectedNode`). On the loop.
    func expectedNode(at endpoint: Endpoint?) -> NodeID? {
        peerKeys.expectedNode(at: endpoint, bookOwner: endpoint.flatMap { addresses.book.owner(of: $0.description) }, configured: configuration.pins)
    }

    /// A dialed address presented another key than the one it had: the dial was refused.
    func connectionRefusedIdentity(_ connection: Connection, reason: String) {
        loop.async { [self] in
            let conflict = "\(connection.dialed?.description ?? connection.remote): \(reason): refused"
            peerKeys.report(conflict)
            configuration.log("\(configuration.name): IDENTITY MISMATCH, refused: \(conflict) "
                + "(if that node was set up anew, `gallery forget` its old node ID)")
            notifyChange()
        }
    }

    // MARK: The relay hold (protocol.md, "Relay", "Batching"; `RelayHold`)

    /// Sends durable batches to the peers now, or with the flush that follows the writes in flight.
    func relayOrHold(_ batches: [InFlight]) {
        switch relayHold.take(batches, pipelineIdle: durability.isIdle) {
        case .send: relay(batches)
        case .flush: flushHeldRelay(corking: true)
        case .arm: armRelayFlush()
        case .wait: break
        }
    }

    /// Keeps batches for one link whose outbox is still writing: they go with the next flush.
    func corkRelay(_ batches: [InFlight], on link: Int) {
        if relayHold.cork(batches, on: link) { armRelayFlush() }
    }

    /// Sends the held batches; with `corking`, links still writing keep them for the next flush.
    func flushHeldRelay(corking: Bool) {
        let held = relayHold.takeHeld()
        if !held.isEmpty { relay(held, corking: corking) }
    }

    /// The flush at the latest, `relayHold` from now: corked batches first on their links, then the held ones.
    private func armRelayFlush() {
        scheduleOnLoop(after: relayHold.cap) { [self] in
            let fired = relayHold.fired()
            for (link, batches) in fired.corked { relay(batches, only: link) }
            if !fired.held.isEmpty { relay(fired.held, corking: false) }
        }
    }

    /// Runs `task` on the node's loop `nanoseconds` from now (`scheduleTimer`).
    func scheduleOnLoop(after nanoseconds: UInt64, _ task: @escaping @Sendable () -> Void) {
        scheduleTimer(after: nanoseconds) { [loop] in loop.async(task) }
    }

    // MARK: Durability before anything leaves the node (`Durability`, `GroupCommit`, `StorageHealth`)

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

    /// The writer could not store what waits: refuse changes, fail the commands waiting, log. On the loop.
    func storingFailed(_ error: any Error) {
        switch storageHealth.storingFailed(error) {
        case .unchanged: break
        case .changed(let reason): configuration.log("\(configuration.name): \(reason)")
        case .began(let reason):
            configuration.log("\(configuration.name): \(reason): \(replica.opCount - durability.count) ops not stored; "
                + "refusing changes and sending nothing until storing works again (retrying every \(StorageHealth.retryInterval) s)")
            for ticket in durability.takeWaiters() { ticket.fail(reason) }
            notifyChange()
        }
    }

    /// The writer stored what waited after a failure: accept changes again and answer the
    /// deferred catch-ups (the ops themselves go out with the durable report that follows). On the loop.
    func storageWorksAgain(stored: Int) {
        storageFault = nil
        configuration.log("\(configuration.name): storing works again: \(stored) ops stored; sending them and accepting changes")
        for (id, version) in peerSessions.takeDeferredCatchUps() {
            // After the durable report is handled (this turn), so that the catch-up covers them.
            loop.async { [self] in startCatchUp(id, from: version) }
        }
    }

    /// Refuses an op that carries the ID of an op held here with other content: says so on the
    /// node's log, keeps it for `status`, and closes the connection with `divergent_op`. On the loop.
    func reportDivergentOp(_ op: Op, from connection: Connection) {
        let entry = storageHealth.divergent(op, from: connection.peer?.name ?? connection.remote, held: replica.heldVersion(of: op.id))
        configuration.log("\(configuration.name): DIVERGENT OP \(op.id) from \(connection.peer?.label ?? entry.peer): it differs from the op held here "
            + "under that ID (received \(entry.received); held \(entry.held ?? "none starts at that counter")); refused, connection closed")
        connection.close(.divergentOp, "op \(op.id) differs from the op held under that ID")
    }

    // MARK: The liveness pass (`Liveness`; its timers in `SyncNode+Lifecycle`)

    /// Quiet liveness: whether nothing is due for a second: nothing of liveness's own
    /// (`Liveness.quietForAWhile`), no version decision, no op waiting for a dependency, no
    /// redial due (an attempt under way, or a connection it made, ends with an event) or gossip,
    /// and nothing changed during the pass. On the loop.
    private func nothingDueSoon(now: UInt64, changesAtStart: UInt64) -> Bool {
        let soon = now &+ Liveness.slowInterval
        return sessionsChanges == changesAtStart
            && liveness.quietForAWhile(now: now, relayTrees: configuration.relayTrees)
            && peerSessions.versionLook.nextDue >= soon
            && replica.bufferedCount == 0
            && addresses.redial.idle(until: soon) && !addresses.gossipWanted
    }

    /// One liveness pass: relay (tree beat, announcements, grafts), then heartbeats, silence and
    /// handshake deadlines and stuck closes of the connections due, then gaps, version exchange
    /// and redials. On the loop.
    func livenessPass() {
        let interval = UInt64(max(configuration.heartbeatInterval.nanoseconds, 1_000_000))
        let timeout = UInt64(max(configuration.peerTimeout.nanoseconds, 1_000_000))
        let handshakeDeadline = UInt64(max(configuration.handshakeTimeout.nanoseconds, 1_000_000))
        let now = clock.now
        let changesAtStart = sessionsChanges
        // The pass was held up (a long turn of the loop, a paused process): no heartbeat went out
        // meanwhile, so peers' silence over that time is not theirs. (A slowed pass was planned late.)
        if let gap = liveness.beginPass(now: now, heartbeatInterval: interval, quiet: configuration.quiet != nil) {
            for connection in connections.values { connection.excuseSilence(until: now, afterPassGap: gap, interval: interval) }
        }
        // The relay first: an announcement due on an idle link goes instead of its heartbeat.
        relayPass(now: now)
        while let id = liveness.nextDue(now: now) {
            guard let connection = connections[id] else { continue }
            let next = connection.tick(now: now, heartbeatInterval: interval, timeout: timeout, handshakeDeadline: handshakeDeadline)
            liveness.due(id, at: next)
        }
        checkForGaps(now: now)
        exchangeVersions(now: now)
        addressPass(now: now)
        if configuration.quiet != nil { liveness.endPass(nothingDueSoon: nothingDueSoon(now: now, changesAtStart: changesAtStart)) }
    }

    /// Gaps on live links: when ops have waited for missing dependencies for `gapTimeout`, sends a
    /// fresh `sync_request` to the peers `PeerSessions.checkGaps` names (protocol.md, "Sync"):
    /// each answers with what this node's version vector lacks, which fills the gap without a
    /// reconnect. On the loop.
    private func checkForGaps(now: UInt64) {
        let buffered = replica.bufferedCount
        guard let request = peerSessions.checkGaps(buffered: buffered, now: now, isConnected: { connections[$0] != nil })
        else { return }
        let peers = request.peers.compactMap { connections[$0] }
        let missing = replica.missingDependencies
        for connection in peers { requestCatchUp(from: connection) }
        let named = missing.prefix(3).map(\.description).joined(separator: ", ") + (missing.count > 3 ? ", ..." : "")
        throttledLog("gap", "\(configuration.name): \(buffered) ops have waited \((now - request.waitingSince) / 1_000_000) ms for \(named); "
            + "asking \(peers.count) peers again")
    }

    /// Anti-entropy: every session whose peer has caught it up and that has not carried one for
    /// `versionExchangeInterval` asks the peer for whatever this node's version vector lacks
    /// (`PeerSessions.versionExchangesDue`): a 16-byte digest of the vector to a peer that speaks
    /// `version_digest` (answered only when the peer's vector differs, so that the exchange of
    /// two nodes holding the same ops costs the same whatever the number of replicas), the
    /// `sync_request` itself to others. A lost frame that no later op depends on is filled within
    /// the interval (or two). On the loop.
    private func exchangeVersions(now: UInt64) {
        let interval = UInt64(max(configuration.versionExchangeInterval.nanoseconds, 1_000_000))
        // The sessions are scanned only when one was written or one's exchange falls due.
        guard let look = peerSessions.versionExchangesDue(now: now, interval: interval) else { return }
        defer { peerSessions.lookedAtVersions(nextDue: look.nextDue) }
        guard !look.due.isEmpty else { return }
        let digest = look.due.contains(where: \.byDigest) ? VersionDigest.of(replica.version) : nil
        for exchange in look.due {
            guard let connection = connections[exchange.id] else { continue }
            if exchange.byDigest, let digest {
                connection.send(.versionDigest(.digest(digest)))
                relayCountsOnLoop.digestsSent += 1
            } else {
                requestCatchUp(from: connection)
                relayCountsOnLoop.fullExchangesSent += 1
            }
            peerSessions.versionExchangeSent(exchange, now: now)
        }
    }
}

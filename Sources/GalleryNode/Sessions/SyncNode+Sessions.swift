import Foundation
import GalleryCrypto
import GalleryModel
import GalleryWire

/// The sync session of each authenticated connection (protocol.md, "Sync").
///
/// Both sides send `sync_request` with their version vector as soon as they are authenticated.
/// The answer to a `sync_request` is every op the requester lacks, in `ops` batches in causal
/// order, then `caught_up`; from then on every op this node applies goes to that peer as its relay
/// policy says (`SyncNode+Relay`). Nothing
/// of a session outlives its connection: a reconnect starts a new exchange of version vectors.
///
/// The delegate calls come on each connection's event loop; everything that
/// touches the replica or the sessions is queued on the node's loop, in the order received.
extension SyncNode: ConnectionDelegate {
    func connectionAuthenticated(_ connection: Connection) {
        guard let peer = connection.peer else { return }
        // Revoked nodes, stale keys and joins hold no session (MembershipExchange).
        guard membershipAdmits(connection, peer) else { return }
        // Heartbeats are due from now on: sooner than the handshake and silence deadlines.
        livenessDue(connection, at: clock.now)
        loop.async { [self] in
            recordKey(of: peer, on: connection)
            recordConnected(connection, peer)
            // One connection per pair of nodes (one static key): when both dialed, keep the one
            // opened by the node with the smaller node ID, on both sides.
            guard keepOneConnection(connection, to: peer) else { return }
            peerSessions.begin(connection.id, now: clock.now, relayTrees: configuration.relayTrees)
            // Before the first `sync_request`: the peer knows what this node accepts before it answers.
            var features: Features = []
            if configuration.compactOps { features.insert(.compactOps) }
            if let quiet = configuration.quiet {
                features.insert(.quietLiveness)
                connection.tolerateSilence(UInt64(max(quiet.peerTimeout.nanoseconds, 1_000_000)))
            }
            if !features.isEmpty { connection.send(.features(features)) }
            beginSync(with: connection, now: clock.now)
            relayConnected(connection, peer: peer.replica)
            if configuration.versionDigests { connection.send(.versionDigest(.speaks)) }
            announceAddresses(on: connection)
            publishPeerChange(connection)
            configuration.log("\(configuration.name): authenticated \(peer.name) (node \(peer.nodeID), \(connection.role.rawValue), \(connection.remote))")
        }
    }

    func connection(_ connection: Connection, received message: Message) {
        // A join or a stale key's connection takes its membership frames and nothing else.
        if case .membership(let membership) = message {
            received(membership, from: connection)
            return
        }
        guard connection.peer?.authority == .space else { return }
        switch message {
        case .syncRequest(let version):
            loop.async { [self] in startCatchUp(connection.id, from: version) }
        case .ops(let ops), .opsCompact(let ops):
            // A signing node's chain hashes are made here, on the connection's event loop, not on the node's.
            let steps = configuration.replicaSalt == nil ? [] : connection.frameChains.steps(of: ops, space: configuration.space)
            loop.async { [self] in receive(ops, steps: steps, from: connection) }
        case .features(let features):
            loop.async { [self] in received(features, from: connection) }
        case .caughtUp(let version):
            loop.async { [self] in
                // The first `caught_up` of a session is logged; those that answer the periodic
                // version exchange only when they bring something new.
                let (previous, first) = peerSessions.caughtUp(connection.id, at: version)
                if first {
                    liveness.joinSettleUntil = clock.now + Self.joinSettle
                    firstCatchUpEnded(on: connection)
                }
                publishPeerChange(connection)
                if previous != version {
                    configuration.log("\(configuration.name): synced with \(connection.peer?.label ?? "?") up to \(version)")
                }
            }
        case .addresses(let announcement):
            loop.async { [self] in received(announcement, from: connection) }
        case .ihave, .ihaveTotal, .tree, .graft, .prune:
            loop.async { [self] in receiveRelay(message, from: connection) }
        case .versionDigest(let digest):
            loop.async { [self] in receive(digest, from: connection) }
        case .heartbeat:
            break
        case .fetch(let request):
            serve(request, on: connection)
        case .chunk(let chunk):
            transfers?.received(chunk, on: connection)
        case .fetchError(let id, let code, _):
            transfers?.fetchFailed(id, code: code, on: connection)
        case .cancel(let id):
            connection.stopServing(id)
        case .thumbnailFetch(let name):
            if let thumbnailReplicator { thumbnailReplicator.serve(name, on: connection) } else { connection.send(.thumbnail(name, data: [])) }
        case .thumbnail(let name, let data):
            thumbnailReplicator?.received(name, data: data, from: connection)
        case .holdsQuery(let id, let hashes):
            policies.availability.serve(id, hashes: hashes, on: connection)
        case .holds(let id, let bitmap):
            policies.availability.answered(id, bitmap: bitmap, from: connection)
        case .controlRequest, .controlResponse:
            // Commands are taken on the local control socket only (ControlServer): a peer, or
            // anyone who can inject frames into a peer link, can never command this node.
            connection.close(.protocolError, "\(message.type) on the peer port: commands are taken on the node's local control socket only")
        case .membership:
            break
        case .hello, .noiseHandshake, .record, .identity, .error:
            connection.close(.protocolError, "\(message.type) after authentication")
        }
    }

    func connectionClosing(_ connection: Connection, since: UInt64) {
        livenessDue(connection, at: since &+ Connection.closeGrace &+ 1)
    }

    func connectionClosed(_ connection: Connection, reason: String) {
        let name = connection.peer?.name ?? connection.remote
        let node = connection.peer.map { " (node \($0.nodeID))" } ?? ""
        loop.async { [self] in
            peerRegistry.closed(connection.id)
            liveness.forget(connection.id)
            let ended = peerSessions.end(connection.id)
            let first = ended?.relay.firstCatchUpPending == true
            if ended != nil { relayDisconnected(connection.id) }
            addressConnectionClosed(connection)
            if first { releaseDeferredRequests(now: clock.now) }
            forgetWaitingOps(of: connection)
            forgetUnsignedTail(of: connection)
            notifyChange()
            if !events.isEmpty { events.publish(.peerChanged(connection: connection.id, status: nil)) }
        }
        transfers?.connectionClosed(connection)
        thumbnailReplicator?.connectionClosed(connection)
        policies.availability.connectionClosed(connection)
        if connection.peer == nil {
            // Connections that never authenticated can come in floods: a few lines a second.
            throttledLog("unauthenticated", "\(configuration.name): connection to \(name) closed before authenticating: \(reason)")
        } else {
            configuration.log("\(configuration.name): connection to \(name) closed: \(reason)\(node)")
        }
    }

    /// Takes the peer's `features`: heartbeats to it slow down when it offers quiet liveness and
    /// this node does too; from now on ops go to it in `ops_compact` frames when it
    /// accepts them and this node sends them, with tables that start empty. A peer that accepted
    /// them keeps getting them for the rest of the connection (protocol.md, section 3). On the loop.
    private func received(_ features: Features, from connection: Connection) {
        if let quiet = configuration.quiet, features.contains(.quietLiveness) {
            connection.sendHeartbeats(every: UInt64(max(quiet.heartbeatInterval.nanoseconds, 1_000_000)))
        }
        guard configuration.compactOps, features.contains(.compactOps) else { return }
        peerSessions.acceptCompactOps(connection.id)
    }

    /// Takes a `version_digest` from a peer (`PeerSessions.received(_:on:holding:now:enabled:)`):
    /// a node configured without digests ignores it, like a node that does not know the frame
    /// type. On the loop.
    private func receive(_ digest: VersionDigest, from connection: Connection) {
        let version = replica.version
        let reaction = peerSessions.received(
            digest, on: connection.id, holding: version, now: clock.now, enabled: configuration.versionDigests)
        switch reaction {
        case .ignore, .noted, .matched(changed: false), .confirmLater:
            break
        case .answerDiffers:
            connection.send(.versionDigest(.differs))
            relayCountsOnLoop.digestsDiffered += 1
        case .matched(changed: true):
            publishPeerChange(connection)
        case .requestFull:
            // The peer answers with what this node's vector lacks, then `caught_up`.
            requestCatchUp(from: connection)
            relayCountsOnLoop.fullExchangesSent += 1
        }
    }

    /// Wakes the waiters and tells the subscribers that a connection changed state. On the loop.
    func publishPeerChange(_ connection: Connection) {
        notifyChange()
        if !events.isEmpty { events.publish(.peerChanged(connection: connection.id, status: status(of: connection))) }
    }

    /// Answers a `fetch`: the blob's chunks, sent as the connection has room (protocol.md,
    /// "Content fetch"), or `fetch_error`.
    private func serve(_ request: FetchRequest, on connection: Connection) {
        guard let blobs = configuration.blobs, request.hash.count == 32 else {
            connection.send(.fetchError(id: request.id, code: .notFound, message: "no such blob here"))
            return
        }
        let limit = Int(connection.peer?.maximumFrameSize ?? FrameLimits.minimum) - 64
        do {
            let stream = try ChunkStream(
                request: request, hash: SHA256.hex(request.hash), store: blobs,
                chunkLength: max(1, min(TransferManager.chunkLength, limit)))
            if !connection.serve(stream) {
                connection.send(.fetchError(
                    id: request.id, code: .internalError, message: "too many fetches at once (at most \(Connection.maximumServedFetches))"))
            }
        } catch .blobNotFound {
            connection.send(.fetchError(id: request.id, code: .notFound, message: "no such blob here"))
            // An item here names those bytes: fetch them, so that the peer finds them on a retry
            // (bytes cross any number of hops, one hop per retry).
            // Looked up on the loop, queued: the connection's event loop never waits for the inbox.
            let hash = SHA256.hex(request.hash)
            if let transfers {
                loop.async { [self] in
                    guard let item = replica.item(withContentHash: hash), let size = item.byteSize, size >= 0 else { return }
                    transfers.relay(item, hash: hash, size: Int(size))
                }
            }
        } catch {
            connection.send(.fetchError(id: request.id, code: .protocolError, message: error.localizedDescription))
        }
    }

    /// Applies received ops and hands the ones that were new to the writer; once durable they go
    /// to every other live peer. `steps`: the ops' chain hashes, made on the connection's event
    /// loop (`FrameChainHasher`). On the loop.
    private func receive(_ ops: [Op], steps: [ChainStep?] = [], from connection: Connection) {
        let kept = withoutRevokedAuthors(ops, from: connection)
        let ops = checkSignatures(kept, steps: kept.count == ops.count ? steps : [], from: connection)
        var applied: [Op] = []
        var failure: (Op, ModelError)?
        var duplicates: [ReplicaID: Int] = [:]
        for op in ops {
            let outcome = replica.receive(op, from: connection.id) { applied.append($0) }
            if case .rejected(let error) = outcome {
                failure = (op, error)
                break
            }
            if case .duplicate = outcome {
                duplicates[op.id.replica, default: 0] += 1
                relayCountsOnLoop.duplicatesReceived += 1
            }
        }
        if failure == nil { noteReceived(ops, duplicates: duplicates, from: connection) }
        _ = self.applied(applied, source: connection.id, waits: false)
        if steps.contains(where: { $0 == nil }) { seedFrameChains(of: ops, on: connection) }
        reportForgedHeldOps()
        if let (op, error) = failure {
            if case .divergentOp = error {
                reportDivergentOp(op, from: connection)
            } else if case .sourceQuotaExceeded = error {
                // Its ops go now, not when the close completes: no other peer waits for the room.
                replica.dropWaitingOps(from: connection.id)
                connection.close(.internalError, "too many of your ops wait for their dependencies")
            } else if case .forgedOp(_, let reason) = error {
                reportForgedOp(op.id, reason: reason, on: [connection])
            } else if case .bufferFull = error {
                replica.dropWaitingOps(from: connection.id)
                connection.close(.internalError, "too many ops wait for their dependencies, yours the most")
            } else {
                connection.close(.rejectedOp, "op \(op.id): \(error.localizedDescription)")
            }
        }
    }

    /// Lets the connection's event loop follow the chains of `ops`' replicas that it does not
    /// follow yet, from their heads here (a peer that sends what follows a chain this node held
    /// before it connected). On the loop.
    private func seedFrameChains(of ops: [Op], on connection: Connection) {
        guard let signatures = replica.authenticator as? OpSignatures else { return }
        var seen: Set<ReplicaID> = []
        var last: ReplicaID?
        for op in ops where op.id.replica != last {
            last = op.id.replica
            guard seen.insert(op.id.replica).inserted, !connection.frameChains.follows(op.id.replica),
                  let head = signatures.heads[op.id.replica], head.key != nil else { continue }
            connection.frameChains.seed(op.id.replica, counter: head.counter, hash: head.hash)
        }
    }

    /// Forgets the early ops that only a closed connection sent (protocol.md, section 6), and when
    /// some went, asks the live peers that have caught this node up for what its version vector
    /// lacks: what a correct peer sent comes again from them, duplicates of the rest are dropped.
    /// On the loop.
    private func forgetWaitingOps(of connection: Connection) {
        let dropped = replica.dropWaitingOps(from: connection.id)
        guard dropped > 0 else { return }
        let peers = peerSessions.syncedPeers.compactMap { connections[$0] }
        for peer in peers { requestCatchUp(from: peer) }
        configuration.log("\(configuration.name): forgot \(dropped) waiting ops of \(connection.peer?.label ?? connection.remote); "
            + "asking \(peers.count) peers for what is missing")
    }
}

// MARK: - Catch-up

/// Answering a `sync_request` (or a `graft`) as a stream: a cursor over the log, one batch of at
/// most `catchUpBatchBytes` per turn of the loop, read straight from the replica's encoded log
/// (nothing is collected or copied ahead), and queued only while the peer's outbox holds less than
/// two batches: a large catch-up never holds the loop, never piles the log up in memory, and live
/// ops keep flowing to the other peers meanwhile.
///
/// Causal order to the peer being caught up: it gets no live ops until its catch-up is done. The
/// catch-up sends the durable ops the peer lacks, in log order; then the ops that became durable
/// while it was sent; then `caught_up` with the durable version vector, and the session is live
/// from that same turn: every op durable afterwards goes out live, after the catch-up.
///
/// A catch-up cut by a disconnect resumes where it stopped: the ops of each replica come in log
/// order, so what the peer received is, per replica, a prefix of what it lacked, and the version
/// vector of its next `sync_request` starts the cursor just past it (`CatchUpCursor`).
///
/// Where each catch-up stands is `PeerSessions`' (`PeerSessions+CatchUp`); this reads the batches
/// from the replica and sends them.
extension SyncNode {
    /// The most log positions one turn looks at when the peer lacks few of them.
    static let catchUpScanLimit = 65_536

    /// Starts answering a `sync_request`: deferred while ops cannot be stored. On the loop.
    func startCatchUp(_ id: Int, from version: VersionVector) {
        guard sessions[id] != nil, connections[id] != nil else { return }
        if storageFault != nil {
            // The replica holds ops that are not durable: answer once they are.
            peerSessions.deferCatchUp(id, from: version)
            return
        }
        let sending = withoutUnsignedReplicas(version)
        let next = replica.firstLogPosition(missingFrom: sending)
        let starts = peerSessions.startCatchUp(id, requested: version, sending: sending, next: next, end: durability.count)
        relayCountsOnLoop.catchUpsAnswered += 1
        if starts { continueCatchUp(id) }
    }

    /// Takes the next step of a catch-up (`PeerSessions.nextCatchUpStep`): sends a batch, or
    /// `caught_up` at its end; continues on a later turn, or once the peer's outbox has room.
    /// On the loop.
    func continueCatchUp(_ id: Int) {
        guard sessions[id]?.catchUp != nil, let connection = connections[id] else { return }
        let budget = min(configuration.catchUpBatchBytes, Int(connection.peer?.maximumFrameSize ?? FrameLimits.minimum))
        let step = peerSessions.nextCatchUpStep(
            id, queuedBytes: connection.outbox.queuedBytes, budget: budget, durableCount: durability.count)
        switch step {
        case nil:
            return
        case .waitForRoom(let highWater):
            // Paced by the socket: the next batch is read once the peer has taken these.
            connection.outbox.whenBelow(highWater) { [weak self] in
                guard let node = self else { return }
                node.loop.async { node.continueCatchUp(id) }
            }
            return
        case .sendBatch(let version, let from, let below, let maximumBytes):
            var uncovered: [ReplicaID] = []
            let (batch, next) = replica.encodedBatch(
                missingFrom: version, from: from, below: below,
                maximumBytes: maximumBytes, maximumScanned: Self.catchUpScanLimit) { uncovered.append($0) }
            reportUncoveredCatchUp(uncovered, to: connection)
            if let batch, let compact = sessions[id]?.compactOps {
                for frame in compact.frames(transcoding: batch, maximumBytes: maximumBytes) {
                    connection.send(frame, priority: .ops, backlog: true)
                    relayCountsOnLoop.catchUpFramesSent += 1
                }
            } else if let batch {
                connection.send(Frame(.ops, payload: batch), priority: .ops, backlog: true)
                relayCountsOnLoop.catchUpFramesSent += 1
            }
            peerSessions.catchUpSent(id, upTo: next)
        case .extended:
            break
        case .finish:
            connection.send(.caughtUp(durability.version))
            peerSessions.finishCatchUp(id, at: durability.version)
            notifyChange()
            return
        }
        loop.async { [self] in continueCatchUp(id) }
    }
}

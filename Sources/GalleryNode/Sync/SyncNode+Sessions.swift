import Foundation
import GalleryModel
import GalleryWire

/// The sync session of each authenticated connection (protocol.md, "Sync").
///
/// Both sides send `sync_request` with their version vector as soon as they are authenticated.
/// The answer to a `sync_request` is every op the requester lacks, in `ops` batches in causal
/// order, then `caught_up`; from then on every op this node applies is pushed to that peer. Nothing
/// of a session outlives its connection: a reconnect starts a new exchange of version vectors.
extension SyncNode: ConnectionDelegate {
    func connectionAuthenticated(_ connection: Connection) {
        guard let peer = connection.peer else { return }
        let duplicate = condition.withLock { () -> Bool in
            // One connection per pair of nodes: when both dialed, keep the one opened by the
            // node with the smaller replica ID, on both sides.
            let keepOutbound = replica.id < peer.replica
            for (id, other) in connections where id != connection.id && other.peer?.replica == peer.replica {
                let otherPreferred = (other.role == .client) == keepOutbound
                let thisPreferred = (connection.role == .client) == keepOutbound
                if otherPreferred || !thisPreferred { return true }
                other.close(.duplicateConnection, "replaced by a connection from the preferred side")
            }
            sessions[connection.id] = Session()
            condition.broadcast()
            return false
        }
        if duplicate {
            connection.close(.duplicateConnection, "already connected to \(peer.name)")
            return
        }
        if peer.name != ControlClientName.value {
            configuration.log("\(configuration.name): authenticated \(peer.name) (\(connection.role.rawValue), \(connection.remote))")
        }
        connection.send(.syncRequest(read { $0.version }))
    }

    func connection(_ connection: Connection, received message: Message) {
        switch message {
        case .syncRequest(let version):
            catchUp(connection, from: version)
        case .ops(let ops):
            receive(ops, from: connection)
        case .caughtUp(let version):
            condition.withLock {
                sessions[connection.id]?.syncedUpTo = version
                condition.broadcast()
            }
            configuration.log("\(configuration.name): synced with \(connection.peer?.name ?? "?") up to \(version)")
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
        case .controlResponse:
            break
        case .controlRequest(let json):
            // On its own thread: a long command (a large `add`) must not stop this connection's
            // reader, which takes the client's heartbeats meanwhile.
            let admitted = condition.withLock { () -> Bool in
                guard runningCommands < Self.maximumRunningCommands else { return false }
                runningCommands += 1
                return true
            }
            guard admitted else {
                let busy = ControlResponse(id: 0, ok: false, error: "the node is busy: \(Self.maximumRunningCommands) commands running")
                connection.send(.controlResponse((try? JSONEncoder().encode(busy)).map(Array.init) ?? []))
                return
            }
            Thread.detachNewThread { [self] in
                control(json, from: connection)
                condition.withLock { runningCommands -= 1 }
            }
        case .hello, .welcome, .auth, .authOK, .error:
            connection.close(.protocolError, "\(message.type) after authentication")
        }
    }

    /// Carries out one command from the command line and answers it.
    private func control(_ json: [UInt8], from connection: Connection) {
        let response: ControlResponse
        do {
            let request = try JSONDecoder().decode(ControlRequest.self, from: Data(json))
            if request.command == "watch" {
                startWatch(request, for: connection)
                return
            }
            if request.command == "drag" && request.wait == true {
                dragAndWait(request, for: connection)
                return
            }
            response = ControlCommands.execute(request, on: self)
        } catch {
            response = ControlResponse(id: 0, ok: false, error: "malformed control request")
        }
        let encoded = (try? JSONEncoder().encode(response)).map(Array.init) ?? []
        connection.send(.controlResponse(encoded))
    }

    func connectionClosed(_ connection: Connection, reason: String) {
        let name = connection.peer?.name ?? connection.remote
        condition.withLock {
            connections[connection.id] = nil
            sessions[connection.id] = nil
            if let watcher = watchers.removeValue(forKey: connection.id) {
                observers[watcher] = nil
                progressObservers[watcher] = nil
            }
            condition.broadcast()
        }
        transfers?.connectionClosed(connection)
        if connection.peer == nil {
            // Connections that never authenticated can come in floods: a few lines a second.
            throttledLog("unauthenticated", "\(configuration.name): connection to \(name) closed before authenticating: \(reason)")
        } else if name != ControlClientName.value {
            configuration.log("\(configuration.name): connection to \(name) closed: \(reason)")
        }
    }

    /// `watch`: answers with the current listing, then sends the events of every batch of changes
    /// (and, for a redrawn view, the listing after them) until the connection closes.
    private func startWatch(_ request: ControlRequest, for connection: Connection) {
        @Sendable func send(_ response: ControlResponse) {
            if let bytes = try? JSONEncoder().encode(response) { connection.send(.controlResponse(Array(bytes))) }
        }
        condition.withLock {
            guard let first = try? ControlCommands.listings(replica, gallery: request.gallery, transfers: transfers) else {
                send(ControlResponse(id: request.id, ok: false, error: "no gallery named \"\(request.gallery ?? "")\""))
                return
            }
            send(ControlResponse(id: request.id, ok: true, galleries: first))
            nextObserverID += 1
            watchers[connection.id] = nextObserverID
            observers[nextObserverID] = { [transfers] ops, replica in
                let events = WatchEvents.events(of: ops, in: replica, gallery: request.gallery)
                guard !events.isEmpty else { return }
                let listing = try? ControlCommands.listings(replica, gallery: request.gallery, transfers: transfers)
                send(ControlResponse(id: request.id, ok: true, galleries: listing, events: events))
            }
            progressObservers[nextObserverID] = { [transfers] progress, replica in
                let events = WatchEvents.events(of: progress, in: replica, gallery: request.gallery)
                guard !events.isEmpty else { return }
                let listing = try? ControlCommands.listings(replica, gallery: request.gallery, transfers: transfers)
                send(ControlResponse(id: request.id, ok: true, galleries: listing, events: events))
            }
        }
    }

    /// `drag --wait`: answers with what the drop did, then once more when every transfer it
    /// started has ended, with their outcomes.
    private func dragAndWait(_ request: ControlRequest, for connection: Connection) {
        @Sendable func send(_ response: ControlResponse) {
            if let bytes = try? JSONEncoder().encode(response) { connection.send(.controlResponse(Array(bytes))) }
        }
        let drops: [DropListing]
        do {
            drops = try DropCommand.execute(request, on: self)
        } catch {
            send(ControlResponse(id: request.id, ok: false, error: error.localizedDescription))
            return
        }
        send(ControlResponse(id: request.id, ok: true, drops: drops))
        let ids = drops.compactMap { $0.transfer.flatMap(OpID.init) }
        let finish: @Sendable ([OpID: TransferOutcome]) -> Void = { outcomes in
            let ended = drops.map { drop -> DropListing in
                var drop = drop
                drop.outcome = drop.transfer.flatMap(OpID.init).map { outcomes[$0]?.description ?? "unknown" } ?? drop.action
                return drop
            }
            send(ControlResponse(id: request.id, ok: true, drops: ended))
        }
        if let transfers { transfers.whenEnded(ids, finish) } else { finish([:]) }
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
            let hash = SHA256.hex(request.hash)
            if let transfers, let item = read({ $0.item(withContentHash: hash) }), let size = item.byteSize, size >= 0 {
                transfers.relay(item, hash: hash, size: Int(size))
            }
        } catch {
            connection.send(.fetchError(id: request.id, code: .protocolError, message: error.localizedDescription))
        }
    }

    /// Queues every op the peer lacks, then `caught_up`, and makes the session live: all under the
    /// lock, so that ops applied afterwards are queued after the catch-up, in causal order.
    private func catchUp(_ connection: Connection, from version: VersionVector) {
        let budget = min(configuration.catchUpBatchBytes, Int(connection.peer?.maximumFrameSize ?? FrameLimits.minimum))
        condition.withLock {
            guard sessions[connection.id] != nil, failure == nil else { return }
            for batch in replica.encodedOps(missingFrom: version, maximumBytes: budget) {
                connection.send(Frame(.ops, payload: batch), priority: .ops, backlog: true)
            }
            connection.send(.caughtUp(replica.version))
            sessions[connection.id]?.live = true
        }
    }

    /// Applies received ops and relays the ones that were new to every other peer.
    private func receive(_ ops: [Op], from connection: Connection) {
        var failure: (Op, ModelError)?
        condition.withLock {
            var applied: [Op] = []
            for op in ops {
                let outcome = replica.receive(op) { applied.append($0) }
                if case .rejected(let error) = outcome {
                    failure = (op, error)
                    break
                }
            }
            broadcast(applied, except: connection.id, local: false)
        }
        if let (op, error) = failure {
            if case .bufferFull = error {
                connection.close(.internalError, "too many ops waiting for their dependencies")
            } else {
                connection.close(.rejectedOp, "op \(op.id): \(error.localizedDescription)")
            }
        }
    }
}

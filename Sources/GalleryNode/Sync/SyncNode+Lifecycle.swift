import Foundation
import GalleryIO
import GalleryModel
import GalleryWire

extension SyncNode {
    /// Starts listening (if configured), dialing the configured peers, and liveness: on the
    /// node's event loops or on threads of their own (`NodeConfiguration.io`).
    ///
    /// - Returns: The bound endpoint, with its real port, when the node listens.
    @discardableResult
    public func start() throws(TransportError) -> Endpoint? {
        let bound: Endpoint?
        switch configuration.io {
        case .threaded: bound = try startThreaded()
        case .eventLoop: bound = try startEventLoops()
        }
        transfers?.start()
        return bound
    }

    private func startThreaded() throws(TransportError) -> Endpoint? {
        var bound: Endpoint?
        if let listen = configuration.listen {
            let listener = try Listener(listen)
            bound = listener.endpoint
            condition.withLock {
                self.listener = listener
                boundEndpoint = listener.endpoint
                running = true
            }
            Thread.detachNewThread { [self] in acceptLoop(listener) }
        }
        // Before any thread that loops `while isRunning` starts.
        condition.withLock { running = true }
        for peer in configuration.peers { keepConnected(to: peer) }
        Thread.detachNewThread { [self] in livenessLoop() }
        return bound
    }

    /// Dials a peer and stays connected to it: reconnects with backoff until the node stops.
    public func keepConnected(to peer: Endpoint) {
        if let loops = condition.withLock({ eventLoops }) {
            dial(peer, attempt: 0, loops: loops)
        } else {
            Thread.detachNewThread { [self] in dialLoop(peer) }
        }
    }

    /// Connects to one more peer, once (no reconnection); returns when the attempt is made.
    public func connect(to peer: Endpoint, timeout: Duration = .seconds(5)) throws(TransportError) {
        if let loops = condition.withLock({ eventLoops }) {
            let (descriptor, remote) = try connectOnce(to: peer, timeout: timeout, loops: loops)
            _ = adopt(descriptor: descriptor, remote: remote, role: .client, loops: loops)
            return
        }
        let streams = try Connector.connect(to: peer, timeout: timeout)
        _ = adopt(streams, role: .client)
    }

    /// Closes every connection (telling peers `shutting_down`) and stops listening and dialing.
    public func stop() {
        transfers?.stop()
        let (listener, loops, open) = condition.withLock { () -> (Listener?, NodeEventLoops?, [Connection]) in
            running = false
            condition.broadcast()
            return (self.listener, eventLoops, Array(connections.values))
        }
        listener?.close()
        loops?.listener?.close()
        for connection in open { connection.close(.shuttingDown, "node stopping") }
        for connection in open { connection.waitUntilClosed() }
        loops?.group.shutdown()
    }

    /// Whether `stop()` has not been called.
    var isRunning: Bool {
        condition.withLock { running }
    }

    /// Wraps streams in a started connection registered with the node.
    func adopt(_ streams: StreamPair, role: Connection.Role) -> Connection? {
        condition.withLock { () -> Connection? in
            guard running else {
                streams.close()
                return nil
            }
            nextConnectionID += 1
            let connection = Connection(
                id: nextConnectionID, role: role, streams: streams, settings: settings,
                queueLimit: configuration.outboundQueueLimit, delegate: self)
            connections[connection.id] = connection
            condition.broadcast()
            connection.start()
            return connection
        }
    }

    /// Keeps one configured peer connected: connect, wait for the connection to end, back off.
    private func dialLoop(_ peer: Endpoint) {
        var generator = SystemRandomNumberGenerator()
        var attempt = 0
        while isRunning {
            do {
                let streams = try Connector.connect(to: peer, timeout: configuration.peerTimeout)
                guard let connection = adopt(streams, role: .client) else { return }
                connection.waitUntilFinished()
                if Self.resetsBackoff(connection) { attempt = 0 }
            } catch {
                if attempt == 0 { configuration.log("\(configuration.name): cannot reach \(peer): \(error.localizedDescription)") }
            }
            let delay = configuration.reconnect.delay(attempt: attempt, using: &generator)
            attempt += 1
            let deadline = Date().addingTimeInterval(Double(delay.nanoseconds) / 1e9)
            condition.withLock {
                while running && condition.wait(until: deadline) {}
            }
        }
    }

    /// Whether a dialed connection that ended resets the backoff: it got through the handshake
    /// and was not refused as a duplicate (the peer dials us too: then keep backing off).
    static func resetsBackoff(_ connection: Connection) -> Bool {
        let duplicate = connection.closeDescription?.contains("\(ErrorCode.duplicateConnection)") == true
        return connection.peer != nil && !duplicate
    }

    /// Sends heartbeats to idle peers and drops silent ones, ten times per heartbeat interval.
    private func livenessLoop() {
        var state = LivenessState(gaps: GapWatch(timeout: UInt64(max(configuration.gapTimeout.nanoseconds, 1_000_000))))
        while isRunning {
            livenessPass(&state)
            Thread.sleep(forTimeInterval: Double(livenessInterval) / 1e9)
        }
    }

    /// How often the liveness pass runs: ten times per heartbeat interval.
    var livenessInterval: UInt64 {
        UInt64(max(configuration.heartbeatInterval.nanoseconds, 1_000_000)) / 10
    }

    /// One liveness pass: heartbeats, silence and handshake deadlines, closes stuck closes,
    /// re-requests gaps, flushes the throttled log.
    func livenessPass(_ state: inout LivenessState) {
        let interval = UInt64(max(configuration.heartbeatInterval.nanoseconds, 1_000_000))
        let timeout = UInt64(max(configuration.peerTimeout.nanoseconds, 1_000_000))
        let handshakeDeadline = UInt64(max(configuration.handshakeTimeout.nanoseconds, 1_000_000))
        let open = condition.withLock { Array(connections.values) }
        let now = DispatchTime.now().uptimeNanoseconds
        // The pass was held up (the node's lock taken by a slow store, a paused process): no
        // heartbeat went out meanwhile, so peers' silence over that time is not theirs.
        if now - state.previous > interval {
            for connection in open { connection.excuseSilence(until: now) }
        }
        state.previous = now
        for connection in open {
            connection.tick(now: now, heartbeatInterval: interval, timeout: timeout, handshakeDeadline: handshakeDeadline)
        }
        checkForGaps(&state.gaps, now: now)
        throttledLog.flush(now: now)
    }
}

import Foundation
import GalleryModel
import GalleryWire

extension SyncNode {
    /// Starts listening (if configured), dialing the configured peers, and the liveness timer.
    ///
    /// - Returns: The bound endpoint, with its real port, when the node listens.
    @discardableResult
    public func start() throws(TransportError) -> Endpoint? {
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
        transfers?.start()
        return bound
    }

    /// Dials a peer and stays connected to it: reconnects with backoff until the node stops.
    public func keepConnected(to peer: Endpoint) {
        Thread.detachNewThread { [self] in dialLoop(peer) }
    }

    /// Connects to one more peer, once (no reconnection); returns when the attempt is made.
    public func connect(to peer: Endpoint, timeout: Duration = .seconds(5)) throws(TransportError) {
        let streams = try Connector.connect(to: peer, timeout: timeout)
        _ = adopt(streams, role: .client)
    }

    /// Closes every connection (telling peers `shutting_down`) and stops listening and dialing.
    public func stop() {
        transfers?.stop()
        let listener = condition.withLock { () -> Listener? in
            running = false
            condition.broadcast()
            return self.listener
        }
        let open = loop.sync { Array(connections.values) }
        listener?.close()
        for connection in open { connection.close(.shuttingDown, "node stopping") }
        for connection in open { connection.waitUntilClosed() }
        // What was applied is stored before the node's storage may be closed.
        loop.drain()
        writer?.stop()
    }

    /// Whether `stop()` has not been called.
    var isRunning: Bool {
        condition.withLock { running }
    }

    /// Wraps streams in a started connection registered with the node.
    func adopt(_ streams: StreamPair, role: Connection.Role) -> Connection? {
        // On the loop, so that `stop` (which stops running, then closes what the loop holds)
        // either sees the connection or makes it refused here.
        let adopted = loop.sync { () -> Connection? in
            guard isRunning else { return nil }
            nextConnectionID += 1
            let connection = Connection(
                id: nextConnectionID, role: role, streams: streams, settings: settings,
                queueLimit: configuration.outboundQueueLimit, delegate: self)
            connections[connection.id] = connection
            notifyChange()
            return connection
        }
        guard let connection = adopted else {
            streams.close()
            return nil
        }
        connection.start()
        return connection
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
                // A session that got through the handshake resets the backoff, unless it was
                // refused as a duplicate (the peer dials us too): then keep backing off.
                let duplicate = connection.closeDescription?.contains("\(ErrorCode.duplicateConnection)") == true
                if connection.peer != nil && !duplicate { attempt = 0 }
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

    /// Sends heartbeats to idle peers and drops silent ones, ten times per heartbeat interval.
    private func livenessLoop() {
        let interval = UInt64(max(configuration.heartbeatInterval.nanoseconds, 1_000_000))
        let timeout = UInt64(max(configuration.peerTimeout.nanoseconds, 1_000_000))
        let handshakeDeadline = UInt64(max(configuration.handshakeTimeout.nanoseconds, 1_000_000))
        var previous = DispatchTime.now().uptimeNanoseconds
        var gaps = GapWatch(timeout: UInt64(max(configuration.gapTimeout.nanoseconds, 1_000_000)))
        while isRunning {
            let open = loop.sync { Array(connections.values) }
            let now = DispatchTime.now().uptimeNanoseconds
            // This loop was held up (the node's lock taken by a slow store, a paused process): no
            // heartbeat went out meanwhile, so peers' silence over that time is not theirs.
            if now - previous > interval {
                for connection in open { connection.excuseSilence(until: now) }
            }
            previous = now
            for connection in open {
                connection.tick(now: now, heartbeatInterval: interval, timeout: timeout, handshakeDeadline: handshakeDeadline)
            }
            checkForGaps(&gaps, now: now)
            throttledLog.flush(now: now)
            Thread.sleep(forTimeInterval: Double(interval) / 1e10)
        }
    }
}

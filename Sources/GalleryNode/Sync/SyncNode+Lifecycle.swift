import Foundation
import GalleryIO
import GalleryWire

extension SyncNode {
    /// Starts listening (if configured), dialing the configured peers, and liveness: on the
    /// node's event loops or on threads of their own (`NodeConfiguration.io`).
    ///
    /// - Returns: The bound endpoint, with its real port, when the node listens.
    @discardableResult
    package func start() throws(TransportError) -> Endpoint? {
        loadAddressBook()
        let bound: Endpoint?
        if let transport = configuration.environment.transport {
            bound = try startTransport(transport)
        } else {
            switch configuration.io {
            case .threaded: bound = try startThreaded()
            case .eventLoop: bound = try startEventLoops()
            }
        }
        transfers?.start()
        loop.async { [self] in addressesStarted(listening: bound) }
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
        Thread.detachNewThread { [self] in livenessLoop() }
        return bound
    }

    /// Adds a peer's address to the address book and dials it; the peer is then redialed with
    /// backoff whenever it is not connected, until the node stops or forgets it (`SyncNode+Redial`).
    package func keepConnected(to peer: Endpoint) {
        loop.async { [self] in learn(peer, source: .connect) }
    }

    /// Connects to one more peer, once (no reconnection); returns when the attempt is made.
    package func connect(to peer: Endpoint, timeout: Duration = .seconds(5)) throws(TransportError) {
        if let loops = condition.withLock({ eventLoops }) {
            let (descriptor, remote) = try connectOnce(to: peer, timeout: timeout, loops: loops)
            _ = adopt(descriptor: descriptor, remote: remote, role: .client, loops: loops, dialed: peer)
            return
        }
        let streams = try Connector.connect(to: peer, timeout: timeout)
        _ = adopt(streams, role: .client, dialed: peer)
    }

    /// Closes every connection (telling peers `shutting_down`) and stops listening and dialing.
    package func stop() {
        transfers?.stop()
        let (listener, loops) = condition.withLock { () -> (Listener?, NodeEventLoops?) in
            running = false
            condition.broadcast()
            return (self.listener, eventLoops)
        }
        let open = loop.sync { Array(connections.values) }
        listener?.close()
        loops?.listener?.close()
        configuration.environment.transport?.stopListening()
        for connection in open { connection.close(.shuttingDown, "node stopping") }
        for connection in open { connection.waitUntilClosed() }
        loops?.group.shutdown()
        // What was applied is stored before the node's storage may be closed.
        loop.drain()
        flushAddressBook()
        writer?.stop()
    }

    /// Whether `stop()` has not been called.
    var isRunning: Bool {
        condition.withLock { running }
    }

    /// Wraps streams in a started connection registered with the node.
    func adopt(_ streams: StreamPair, role: Connection.Role, dialed: Endpoint? = nil) -> Connection? {
        // On the loop, so that `stop` (which stops running, then closes what the loop holds)
        // either sees the connection or makes it refused here.
        let adopted = loop.sync { () -> Connection? in
            guard isRunning else { return nil }
            nextConnectionID += 1
            let connection = Connection(
                id: nextConnectionID, role: role, streams: streams, settings: settings,
                queueLimit: configuration.outboundQueueLimit, delegate: self,
                dialed: dialed, expectedNode: expectedNode(at: dialed))
            hold(connection)
            return connection
        }
        guard let connection = adopted else {
            streams.close()
            return nil
        }
        connection.start()
        return connection
    }

    /// Whether a dialed connection that ended resets the backoff: it got through the handshake
    /// and was not refused as a duplicate (the peer dials us too: then keep backing off).
    static func resetsBackoff(_ connection: Connection) -> Bool {
        let duplicate = connection.closeDescription?.contains("\(ErrorCode.duplicateConnection)") == true
        return connection.peer != nil && !duplicate
    }
}

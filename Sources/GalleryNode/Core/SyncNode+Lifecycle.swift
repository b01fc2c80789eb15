import Foundation
import GalleryIO
import GalleryWire
import Synchronization

extension SyncNode {
    /// Starts listening (if configured), dialing the configured peers, and liveness, on the
    /// environment's transport (a simulated network) or on TCP over the node's event loops.
    ///
    /// - Returns: The bound endpoint, with its real port, when the node listens.
    @discardableResult
    package func start() throws(TransportError) -> Endpoint? {
        loadAddressBook()
        let transport: any NodeTransport
        if let custom = configuration.environment.transport {
            transport = custom
        } else {
            transport = try EventLoopTransport()
        }
        let bound: Endpoint?
        do {
            bound = try startTransport(transport)
        } catch {
            (transport as? EventLoopTransport)?.shutdown()
            throw error
        }
        transfers?.start()
        sweepThumbnails()
        loop.async { [self] in addressesStarted(listening: bound) }
        return bound
    }

    /// Adds a peer's address to the address book and dials it; the peer is then redialed with
    /// backoff whenever it is not connected, until the node stops or forgets it (`SyncNode+Redial`).
    package func keepConnected(to peer: Endpoint) {
        loop.async { [self] in learn(peer, source: .connect) }
    }

    /// Connects to one more peer, once (no reconnection); returns when the attempt is made.
    package func connect(to peer: Endpoint, timeout: Duration = .seconds(5)) throws(TransportError) {
        guard let transport = condition.withLock({ transport }) else { throw .connect(peer.description, "the node is not running") }
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<any TransportLink, TransportError>?>(nil)
        transport.connect(to: peer, timeout: UInt64(max(timeout.nanoseconds, 1))) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        // The transport's own deadline answers first; a transport stopped meanwhile never answers.
        _ = done.wait(timeout: .now() + .nanoseconds(Int(clamping: max(timeout.nanoseconds, 0) + 1_000_000_000)))
        switch outcome.withLock({ $0 }) {
        case .success(let link)?:
            _ = loop.sync { register(link, role: .client, dialed: peer, onFinished: nil) }
        case .failure(let error)?:
            throw error
        case nil:
            throw .connect(peer.description, "the node stopped")
        }
    }

    /// Closes every connection (telling peers `shutting_down`) and stops listening and dialing.
    package func stop() {
        transfers?.stop()
        thumbnails?.stop()
        thumbnailReplicator?.stop()
        policies.eager?.stop()
        policies.cache?.save()
        let transport = condition.withLock { () -> (any NodeTransport)? in
            running = false
            condition.broadcast()
            return self.transport
        }
        let open = loop.sync { Array(connections.values) }
        transport?.stopListening()
        for connection in open { connection.close(.shuttingDown, "node stopping") }
        for connection in open { connection.waitUntilClosed() }
        (transport as? EventLoopTransport)?.shutdown()
        // What was applied is stored before the node's storage may be closed.
        loop.drain()
        flushAddressBook()
        writer?.stop()
    }

    /// The node's event loops once it runs on them, nil before `start` and on a simulated
    /// network: adapters such as the control socket put their connections there too.
    package var ioLoops: EventLoopGroup? {
        (condition.withLock { transport } as? EventLoopTransport)?.group
    }

    /// Whether `stop()` has not been called.
    var isRunning: Bool {
        condition.withLock { running }
    }

    /// Whether a dialed connection that ended resets the backoff: it got through the handshake
    /// and was not refused as a duplicate (the peer dials us too: then keep backing off).
    static func resetsBackoff(_ connection: Connection) -> Bool {
        let duplicate = connection.closeDescription?.contains("\(ErrorCode.duplicateConnection)") == true
        return connection.peer != nil && !duplicate
    }
}

import Foundation
import GalleryIO
import GalleryWire
import Synchronization

/// The node's life on its `NodeTransport` (TCP on event loops, or a simulated network): start and
/// stop, accepting (admission first), dialing, registering each connection and keeping one per
/// pair of nodes, the timers; everything above the transport (connections, pipelines, sessions,
/// group commit) is the same code for both.
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

    // MARK: Transport (`NodeTransport`: TCP on event loops, or a simulated network)

    /// The node's clock (`NodeEnvironment.clock`).
    var clock: any NodeClock { configuration.environment.clock }

    /// Starts listening on the transport, dialing the configured peers, and the liveness timer.
    func startTransport(_ transport: any NodeTransport) throws(TransportError) -> Endpoint? {
        var bound: Endpoint?
        condition.withLock {
            self.transport = transport
            running = true
        }
        if let listen = configuration.listen {
            bound = try transport.listen(
                on: listen, accepted: { [self] link in acceptedLink(link) }, failed: { [self] error in acceptFailed(error) })
        }
        condition.withLock { boundEndpoint = bound }
        if configuration.quiet != nil {
            // Passes that slow down to one a second while nothing is due (`SyncNode+Liveness`).
            loop.async { [self] in schedulePass(after: livenessInterval) }
        } else {
            scheduleLiveness(on: clock)
        }
        return bound
    }

    /// An inbound link (on the transport's accepting thread): admitted, or refused at once with
    /// nothing made for it. Admission is decided here, one link at a time, and an admitted link
    /// holds its place from then on, so the caps hold exactly; the node's loop makes and registers
    /// the connection meanwhile, without the accepting thread waiting for it.
    private func acceptedLink(_ link: any TransportLink) {
        acceptPause.withLock { $0 = 0 }
        guard let ticket = admission.admit(link.remote, node: configuration.name, log: throttledLog, close: { link.refuse() }) else { return }
        loop.async { [self] in
            guard let connection = register(link, role: .server, onFinished: nil) else {
                admission.release(ticket)
                return
            }
            admission.admitted(connection, with: ticket)
        }
    }

    /// Accepting failed: the listener pauses for the returned nanoseconds (`AdmissionController.acceptBackoff`).
    private func acceptFailed(_ error: TransportError) -> UInt64 {
        acceptPause.withLock { pause in
            pause = admission.acceptBackoff(after: error, previous: pause, node: configuration.name, log: throttledLog)
            return pause
        }
    }

    /// Registers and starts a connection over `link`, or refuses the link when the node stopped.
    /// On the node's loop.
    func register(_ link: any TransportLink, role: Connection.Role, dialed: Endpoint? = nil,
                  onFinished: (@Sendable (Connection) -> Void)?) -> Connection? {
        guard isRunning else {
            link.refuse()
            return nil
        }
        let connection = Connection(
            id: peerRegistry.nextID(), role: role, link: link, settings: settings,
            queueLimit: configuration.outboundQueueLimit, clock: clock, tally: configuration.environment.wireTally,
            withheld: configuration.environment.withheldFrames, delegate: self,
            dialed: dialed, expectedNode: expectedNode(at: dialed))
        hold(connection)
        connection.start(onFinished: onFinished)
        return connection
    }

    /// Requests the liveness pass ten times per heartbeat interval, until the node stops.
    private func scheduleLiveness(on clock: any NodeClock) {
        scheduleTimer(after: livenessInterval) { [self] in
            guard isRunning else { return }
            requestLivenessPass()
            scheduleLiveness(on: clock)
        }
    }

    /// Runs `task` `nanoseconds` from now: on the first event loop's timers over TCP (no Dispatch
    /// timer: libdispatch traps when it cannot make its descriptors, which a node at its descriptor
    /// limit would hit), on the environment's clock on a simulated network.
    func scheduleTimer(after nanoseconds: UInt64, _ task: @escaping @Sendable () -> Void) {
        if let loops = ioLoops {
            _ = loops.loops[0].schedule(after: nanoseconds, task)
        } else {
            clock.schedule(after: nanoseconds, task)
        }
    }

    /// Holds a connection just made: the node's connections and liveness's deadlines (it is
    /// looked at on the next pass). On the loop.
    func hold(_ connection: Connection) {
        peerRegistry.hold(connection, dialedAt: connection.dialed?.description)
        liveness.due(connection.id, at: clock.now)
        notifyChange()
    }

    /// One connection per pair of nodes (`PeerRegistry.duplicateCloses`): closes the connections
    /// the rule drops now that `connection` authenticated as `peer`. False when that is
    /// `connection` itself. On the loop.
    func keepOneConnection(_ connection: Connection, to peer: PeerIdentity) -> Bool {
        let keepOutbound = settings.nodeID < peer.nodeID
        for close in peerRegistry.duplicateCloses(for: connection, peer: peer, keepOutbound: keepOutbound) {
            switch close {
            case .this:
                connection.close(.duplicateConnection, "already connected to \(peer.label)")
                return false
            case .other(let id):
                connections[id]?.close(.duplicateConnection, "replaced by a connection from the preferred side")
            }
        }
        return true
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
}

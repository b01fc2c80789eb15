import Foundation
import GalleryIO
import GalleryWire
import Synchronization

/// The node's life on its `NodeTransport` (TCP on event loops, or a simulated network): start and
/// stop, accepting (admission first), dialing, registering each connection and keeping one per
/// pair of nodes, the timers (the liveness pass's among them), the address book's dials;
/// everything above the transport (connections, pipelines, sessions, group commit) is the same
/// code for both.
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
        policies.cache?.evictIfOverBudget()
        thumbnailReplicator?.sweep()
        loop.async { [self] in addresses.started(listening: bound) }
        return bound
    }

    /// Adds a peer's address to the address book and dials it; the peer is then redialed with
    /// backoff whenever it is not connected, until the node stops or forgets it (`PeerDirectory`).
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
    package var ioLoops: EventLoopGroup? { (condition.withLock { transport } as? EventLoopTransport)?.group }

    /// Whether `stop()` has not been called.
    var isRunning: Bool { condition.withLock { running } }

    // MARK: Transport (`NodeTransport`: TCP on event loops, or a simulated network), timers

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
            // Passes that slow down to one a second while nothing is due (`schedulePass`).
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
            withheld: configuration.environment.withheldFrames, withholds: configuration.environment.withholds, delegate: self,
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

    /// A connection's deadlines came closer (it authenticated: heartbeats are due; it is closing:
    /// its close must not take longer than `Connection.closeGrace`): looked at by `deadline`.
    func livenessDue(_ connection: Connection, at deadline: UInt64) {
        loop.async { [self] in
            guard connections[connection.id] != nil else { return }
            liveness.due(connection.id, at: deadline)
        }
    }

    /// How often the liveness pass runs: ten times per heartbeat interval.
    var livenessInterval: UInt64 { UInt64(max(configuration.heartbeatInterval.nanoseconds, 1_000_000)) / 10 }

    /// Queues a liveness pass on the node's loop (unless one waits there already), which owns the
    /// connections and the replica; flushes the throttled log here, whatever the loop is doing.
    /// Called by the liveness timer.
    func requestLivenessPass() {
        let queue = condition.withLock { () -> Bool in
            defer { livenessQueued = true }
            return !livenessQueued
        }
        if queue {
            loop.async { [self] in
                condition.withLock { livenessQueued = false }
                livenessPass()
            }
        }
        throttledLog.flush(now: clock.now)
    }

    /// How many liveness passes have run (tests: an idle node's pace).
    package var livenessPasses: Int { loop.sync { liveness.passes } }

    /// Quiet liveness: the next pass, `delay` from now, on the current chain of timers; after
    /// it, the next one, sooner or later as the pass found. On the loop.
    func schedulePass(after delay: UInt64) {
        let generation = liveness.plan(after: delay)
        scheduleTimer(after: delay) { [self] in
            guard isRunning else { return }
            throttledLog.flush(now: clock.now)
            loop.async { [self] in
                guard liveness.plannedPassFired(generation: generation) else { return }
                livenessPass()
                schedulePass(after: liveness.nextDelay(interval: livenessInterval))
            }
        }
    }

    /// Something happened on the loop (a session, connection, op or durable batch changed): a
    /// node whose passes slowed down because nothing was due has its next pass at the usual pace.
    /// Cheap when not slowed: called from the loop state's accessors. On the loop.
    func wakeLiveness() {
        guard _liveness.wake() else { return }
        schedulePass(after: livenessInterval)
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

    // MARK: Addresses and redials (protocol.md, "Addresses"; `PeerDirectory`)

    /// Seconds since 1970, the address book's clock: the environment's calendar.
    var bookClock: Double { configuration.environment.wallClock() }

    /// Loads the stored address book and adds the configured peers to it. Before the node starts.
    func loadAddressBook() {
        let loaded = PeerDirectory(
            store: configuration.addressBook, peers: configuration.peers, now: bookClock, node: configuration.name, log: configuration.log)
        loop.sync {
            addresses.book = loaded.book
            addresses.saver = loaded.saver
        }
    }

    /// Records an address the user gave (`connect`) and dials it. On the loop.
    func learn(_ endpoint: Endpoint, source: AddressSource) {
        addresses.learn(endpoint, source: source, now: bookClock)
        redialPass(now: clock.now)
    }

    /// A connection authenticated: the peer goes in the book (with the address dialed, for an
    /// outbound one), before any duplicate is resolved. On the loop.
    func recordConnected(_ connection: Connection, _ peer: PeerIdentity) {
        let now = bookClock
        addresses.connected(peer, dialed: peerRegistry.dialed[connection.id], now: now)
        peerRegistry.authenticated(connection.id, at: now)
    }

    /// Sends the peer where this node listens and the members it knows. On the loop.
    func announceAddresses(on connection: Connection) {
        guard let peer = connection.peer else { return }
        let listening = configuration.announce ?? condition.withLock { boundEndpoint }.map { [$0] } ?? []
        _ = connection.send(.addresses(addresses.announcement(
            to: PeerKey(peer), listening: listening, connected: peerRegistry.connectedKeys, now: bookClock)))
    }

    /// A peer's `addresses` frame (`PeerDirectory.received`), taken once its session began. On the loop.
    func received(_ announcement: AddressAnnouncement, from connection: Connection) {
        guard let peer = connection.peer, sessions[connection.id] != nil else { return }
        addresses.received(
            announcement, from: PeerKey(peer), seenHost: Endpoint(connection.remote)?.host, own: PeerKey(settings.nodeID), now: bookClock)
    }

    /// A connection ended: its peer was seen now, and is redialed soon when no other connection
    /// to it is left. On the loop.
    func addressConnectionClosed(_ connection: Connection) {
        peerRegistry.forgetAddress(of: connection.id)
        guard let peer = connection.peer else { return }
        let key = PeerKey(peer)
        addresses.disconnected(key, stillConnected: peerRegistry.connectedKeys.contains(key), now: bookClock)
    }

    /// The periodic part (from the liveness pass): redials, and a round of gossip when a peer
    /// announced a change. On the loop.
    func addressPass(now: UInt64) {
        redialPass(now: now)
        guard addresses.gossipWanted, now &- addresses.lastGossipRound >= PeerDirectory.gossipInterval else { return }
        _ = addresses.takeGossipRound(now: now)
        for (id, connection) in connections where sessions[id] != nil { announceAddresses(on: connection) }
    }

    /// Starts every dial that is due (`PeerDirectory.dueAttempts`). On the loop (the liveness
    /// pass, and when the book changes).
    func redialPass(now: UInt64) {
        guard isRunning else { return }
        let badAddressDelay = UInt64(max(configuration.reconnect.maximum.nanoseconds, 0))
        let attempts = addresses.dueAttempts(now: now, badAddressDelay: badAddressDelay) { peerRegistry.connectedKeys }
        for attempt in attempts { startDial(attempt.endpoint, for: attempt.key) }
    }

    /// Dials `endpoint` on the transport; the outcome comes back to the loop (`dialEnded`).
    private func startDial(_ endpoint: Endpoint, for key: DialTarget.Key) {
        let address = endpoint.description
        guard let transport = condition.withLock({ transport }) else {
            dialEnded(key, address: address, connection: nil, failure: "the node stopped")
            return
        }
        let timeout = UInt64(max(configuration.peerTimeout.nanoseconds, 1_000_000))
        transport.connect(to: endpoint, timeout: timeout) { [self] result in
            loop.async { [self] in
                switch result {
                case .success(let link):
                    let connection = register(link, role: .client, dialed: endpoint) { [self] connection in
                        loop.async { [self] in dialEnded(key, address: address, connection: connection, failure: nil) }
                    }
                    if connection == nil { dialEnded(key, address: address, connection: nil, failure: "the node stopped") }
                case .failure(let error):
                    dialEnded(key, address: address, connection: nil, failure: error.localizedDescription)
                }
            }
        }
    }

    /// An attempt is over: its connection ended, or it never connected. The next is due after the
    /// backoff (from 0 again when the connection got through its handshake). On the loop.
    private func dialEnded(_ key: DialTarget.Key, address: String, connection: Connection?, failure: String?) {
        let gotThrough = connection.map(Redial.resetsBackoff) ?? false
        let error = failure ?? connection?.closeDescription.map { "\(address): \($0)" }
        let first = addresses.redial.attemptEnded(key, gotThrough: gotThrough, error: error, now: clock.now) { attempt in
            var generator = EnvironmentRandom(source: configuration.environment.random)
            return UInt64(max(configuration.reconnect.delay(attempt: attempt, using: &generator).nanoseconds, 0))
        }
        if first, let failure { configuration.log("\(configuration.name): cannot reach \(address): \(failure)") }
    }

    /// Removes a peer (by name or key) or a pending address from the book, unpins it and stops
    /// dialing it; a live connection to it stays up. False when the book holds no such peer or address.
    package func forget(_ peerOrAddress: String) -> Bool {
        loop.sync { forgetOnLoop(peerOrAddress) }
    }

    /// `forget`, on the loop.
    func forgetOnLoop(_ peerOrAddress: String) -> Bool {
        let (forgotten, node) = addresses.forget(peerOrAddress)
        guard forgotten else { return false }
        peerKeys.unpin(node: node, address: Endpoint(peerOrAddress))
        notifyChange()
        return true
    }

    /// The peers in the book, connected or not, and the addresses still waiting for an answer,
    /// with their redial state.
    package var knownPeers: [KnownPeerStatus] {
        loop.sync {
            var since: [PeerKey: Double] = [:]
            for (id, connection) in connections {
                guard let peer = connection.peer, sessions[id] != nil, let time = peerRegistry.since[id] else { continue }
                since[PeerKey(peer)] = time
            }
            return addresses.knownPeers(connectedSince: since, now: clock.now)
        }
    }

    /// Waits until the stored book holds every change made so far (tests, `stop`).
    func flushAddressBook() {
        let saver = loop.sync { addresses.saver }
        saver?.drain()
    }
}

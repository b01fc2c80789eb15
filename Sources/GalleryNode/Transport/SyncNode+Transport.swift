import GalleryIO
import Synchronization

/// A node on its `NodeTransport` (TCP on event loops, or a simulated network): accept, dial with
/// backoff, and the liveness timer on the environment's clock; everything above the transport
/// (connections, pipelines, sessions, group commit) is the same code for both.
extension SyncNode {
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
        guard let ticket = admit(link.remote, close: { link.refuse() }) else { return }
        loop.async { [self] in
            guard let connection = register(link, role: .server, onFinished: nil) else {
                admission.release(ticket)
                return
            }
            admission.admitted(connection, with: ticket)
        }
    }

    /// Accepting failed: the listener pauses for the returned nanoseconds (`acceptBackoff`).
    private func acceptFailed(_ error: TransportError) -> UInt64 {
        acceptPause.withLock { pause in
            pause = acceptBackoff(after: error, previous: pause)
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
}

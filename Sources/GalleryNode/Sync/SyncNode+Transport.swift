import GalleryIO

/// A node on a `NodeTransport` (`NodeEnvironment.transport`, a simulated network): accept, dial
/// with backoff and the liveness timer run on the environment's clock instead of threads or event
/// loops; everything else (connections, pipelines, sessions, group commit) is the same code.
extension SyncNode {
    /// The node's clock (`NodeEnvironment.clock`).
    var clock: any NodeClock { configuration.environment.clock }

    /// Starts listening on the transport, dialing the configured peers, and the liveness timer.
    func startTransport(_ transport: any NodeTransport) throws(TransportError) -> Endpoint? {
        var bound: Endpoint?
        condition.withLock { running = true }
        if let listen = configuration.listen {
            bound = try transport.listen(on: listen) { [self] link in acceptedLink(link) }
        }
        condition.withLock { boundEndpoint = bound }
        scheduleLiveness(on: clock)
        return bound
    }

    /// An inbound link: admitted like an accepted socket, or refused at once.
    private func acceptedLink(_ link: any TransportLink) {
        guard let ticket = admit(link.remote, close: { link.refuse() }) else { return }
        guard let connection = loop.sync({ register(link, role: .server, onFinished: nil) }) else {
            admission.release(ticket)
            return
        }
        admission.admitted(connection, with: ticket)
    }

    /// Registers and starts a connection over `link`, or refuses the link when the node stopped.
    /// On the node's loop.
    func register(_ link: any TransportLink, role: Connection.Role, dialed: Endpoint? = nil,
                  onFinished: (@Sendable (Connection) -> Void)?) -> Connection? {
        guard isRunning else {
            link.refuse()
            return nil
        }
        nextConnectionID += 1
        let connection = Connection(
            id: nextConnectionID, role: role, link: link, settings: settings,
            queueLimit: configuration.outboundQueueLimit, clock: clock, tally: configuration.environment.wireTally, delegate: self,
            dialed: dialed, expectedNode: expectedNode(at: dialed))
        hold(connection)
        connection.start(onFinished: onFinished)
        return connection
    }

    /// Requests the liveness pass ten times per heartbeat interval on `clock`, until the node stops.
    private func scheduleLiveness(on clock: any NodeClock) {
        clock.schedule(after: livenessInterval) { [self] in
            guard isRunning else { return }
            requestLivenessPass()
            scheduleLiveness(on: clock)
        }
    }
}

import Foundation
import GalleryIO
import Synchronization

/// A node on event loops (`PeerIO.eventLoop`): accept, dial with backoff, every connection's
/// reads and writes, and the liveness pass run on a few loop threads, whatever the number of
/// peers. Connections are assigned to the loops round robin.
extension SyncNode {
    /// The node's event loops once it runs on them (`PeerIO.eventLoop`), nil before `start` and
    /// for threaded I/O: adapters such as the control socket put their connections there too.
    package var ioLoops: EventLoopGroup? {
        condition.withLock { eventLoops?.group }
    }

    /// Starts the loops, the listener (on the first loop), the dialers and the liveness timer.
    func startEventLoops() throws(TransportError) -> Endpoint? {
        let group = try EventLoopGroup(name: "gallery-io")
        let loops = NodeEventLoops(group: group)
        var bound: Endpoint?
        if let listen = configuration.listen {
            let listener: LoopListener
            do {
                listener = try LoopListener(listen, loop: loops.first)
            } catch {
                group.shutdown()
                throw error
            }
            loops.listener = listener
            bound = listener.endpoint
        }
        condition.withLock {
            eventLoops = loops
            boundEndpoint = bound
            running = true
        }
        loops.listener?.start(
            accepted: { [self] descriptor, remote in accepted(descriptor, remote: remote, loops: loops) },
            failed: { [self] error in acceptFailed(error, loops: loops) })
        scheduleLiveness(loops)
        return bound
    }

    /// Wraps a connected descriptor in a connection on the next event loop, registered with the
    /// node and started; waits for the node's loop, which owns `connections`.
    func adopt(descriptor: Int32, remote: String, role: Connection.Role, loops: NodeEventLoops, dialed: Endpoint? = nil,
               onFinished: (@Sendable (Connection) -> Void)? = nil) -> Connection? {
        loop.sync { register(descriptor: descriptor, remote: remote, role: role, loops: loops, dialed: dialed, onFinished: onFinished) }
    }

    /// Registers a connection for a connected descriptor and starts it, or closes the descriptor
    /// when the node stopped. On the node's loop, so that `stop` (which stops running, then closes
    /// what the loop holds) either sees the connection or makes it refused here.
    func register(descriptor: Int32, remote: String, role: Connection.Role, loops: NodeEventLoops,
                  dialed: Endpoint? = nil, onFinished: (@Sendable (Connection) -> Void)?) -> Connection? {
        guard isRunning else {
            POSIX.closeDescriptor(descriptor)
            return nil
        }
        nextConnectionID += 1
        let socket = NonBlockingSocket(descriptor: descriptor, remote: remote, loop: loops.group.next())
        let connection = Connection(
            id: nextConnectionID, role: role, socket: socket, settings: settings,
            queueLimit: configuration.outboundQueueLimit, delegate: self,
            dialed: dialed, expectedNode: expectedNode(at: dialed))
        hold(connection)
        connection.start(onFinished: onFinished)
        return connection
    }

    /// An inbound connection (on the first loop): admitted, or closed at once with nothing made
    /// for it. Admission is decided here, one connection at a time, and an admitted connection
    /// holds its place from then on, so the caps hold exactly; the node's loop makes and registers
    /// it meanwhile, without the first loop (and its connections) waiting for it.
    private func accepted(_ descriptor: Int32, remote: String, loops: NodeEventLoops) {
        loops.acceptBackoff = 0
        guard let ticket = admit(remote, close: { POSIX.closeDescriptor(descriptor) }) else { return }
        loop.async { [self] in
            guard let connection = register(descriptor: descriptor, remote: remote, role: .server, loops: loops, onFinished: nil) else {
                admission.release(ticket)
                return
            }
            admission.admitted(connection, with: ticket)
        }
    }

    /// Accepting failed: the listener pauses for the returned nanoseconds (`acceptBackoff`).
    private func acceptFailed(_ error: TransportError, loops: NodeEventLoops) -> UInt64 {
        loops.acceptBackoff = acceptBackoff(after: error, previous: loops.acceptBackoff)
        return loops.acceptBackoff
    }

    /// Connects once on a loop, waiting for the outcome on the caller's thread.
    func connectOnce(to peer: Endpoint, timeout: Duration, loops: NodeEventLoops) throws(TransportError) -> (Int32, String) {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<(Int32, String), TransportError>?>(nil)
        LoopConnector.connect(to: peer, on: loops.group.next(), timeout: timeout) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        // The connector's own deadline answers first; a loop stopped meanwhile never answers.
        _ = done.wait(timeout: .now() + .nanoseconds(Int(clamping: max(timeout.nanoseconds, 0) + 1_000_000_000)))
        switch outcome.withLock({ $0 }) {
        case .success(let connected)?: return connected
        case .failure(let error)?: throw error
        case nil: throw .connect(peer.description, "the node stopped")
        }
    }

    /// Queues the liveness pass on the node's loop from a timer on the first event loop, ten times
    /// per heartbeat interval, until the node stops.
    private func scheduleLiveness(_ loops: NodeEventLoops) {
        loops.first.schedule(after: livenessInterval) { [self] in
            guard isRunning else { return }
            requestLivenessPass()
            scheduleLiveness(loops)
        }
    }
}

import Foundation
import GalleryIO
import Synchronization

/// The production `NodeTransport`: TCP on a small fixed set of event loops (epoll on Linux, kqueue
/// on Darwin), one per core, whatever the number of peers. The listener runs on the first loop;
/// each link, accepted or dialed, is assigned to the next loop round robin. A simulated network is
/// the other transport: the node above this seam is the same code for both.
final class EventLoopTransport: NodeTransport, Sendable {
    /// The loops; adapters of the node (the control socket) put their connections there too.
    let group: EventLoopGroup
    private let listener = Mutex<LoopListener?>(nil)

    /// Starts the loops.
    init(name: String = "gallery-io") throws(TransportError) {
        group = try EventLoopGroup(name: name)
    }

    func listen(
        on endpoint: Endpoint, accepted: @escaping @Sendable (any TransportLink) -> Void,
        failed: @escaping @Sendable (TransportError) -> UInt64
    ) throws(TransportError) -> Endpoint {
        let listener = try LoopListener(endpoint, loop: group.loops[0])
        self.listener.withLock { $0 = listener }
        listener.start(
            accepted: { [group] descriptor, remote in
                accepted(SocketLink(descriptor: descriptor, remote: remote, loop: group.next()))
            },
            failed: failed)
        return listener.endpoint ?? endpoint
    }

    func connect(to endpoint: Endpoint, timeout: UInt64,
                 completion: @escaping @Sendable (Result<any TransportLink, TransportError>) -> Void) {
        let loop = group.next()
        LoopConnector.connect(to: endpoint, on: loop, timeout: .nanoseconds(Int64(clamping: timeout))) { result in
            completion(result.map { descriptor, remote in SocketLink(descriptor: descriptor, remote: remote, loop: loop) })
        }
    }

    func stopListening() {
        listener.withLock { $0 }?.close()
    }

    /// Stops the loops (after the node closed its connections).
    func shutdown() {
        group.shutdown()
    }
}

/// A connected TCP socket not yet wrapped in a channel: its descriptor, its peer's address, and the
/// event loop that will run it.
final class SocketLink: TransportLink, Sendable {
    let remote: String
    private let descriptor: Int32
    private let loop: EventLoop
    /// Whether the descriptor was taken (by a channel, or closed by `refuse`).
    private let consumed = Atomic(false)

    init(descriptor: Int32, remote: String, loop: EventLoop) {
        self.descriptor = descriptor
        self.remote = remote
        self.loop = loop
    }

    func makeChannel(source: any OutboundByteSource, handlers: [any ChannelHandler]) -> any TransportChannel {
        let first = !consumed.exchange(true, ordering: .acquiringAndReleasing)
        precondition(first, "a socket link makes one channel")
        let socket = NonBlockingSocket(descriptor: descriptor, remote: remote, loop: loop)
        return StreamChannel(socket: socket, source: source, handlers: handlers)
    }

    func refuse() {
        let first = !consumed.exchange(true, ordering: .acquiringAndReleasing)
        if first { POSIX.closeDescriptor(descriptor) }
    }
}

extension StreamChannel: TransportChannel {}

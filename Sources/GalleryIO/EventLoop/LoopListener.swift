import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A listening socket watched by an event loop (TCP, or a Unix socket such as the node's control
/// socket): it accepts every waiting connection when the loop finds it readable and hands each
/// descriptor to `accepted`, on the loop's thread.
///
/// When accepting fails, `failed` decides how long to stop watching (descriptor exhaustion leaves
/// the connection in the backlog, so a level-triggered loop would otherwise spin on it). Its state
/// is `LoopBound` to the loop's thread (`close` hops there from elsewhere).
package final class LoopListener: ReadinessHandler, Sendable {
    /// The address and port actually bound; nil for a Unix socket.
    package let endpoint: Endpoint?
    package let loop: EventLoop
    private let descriptor: Int32
    // Closures are forwarded by `get`/`set`: yielding one from `_read`/`_modify` crashes the Swift 6.3 compiler.
    private var accepted: ((Int32, String) -> Void)? {
        get { boundAccepted.value }
        set { boundAccepted.value = newValue }
    }
    private let boundAccepted: LoopBound<((Int32, String) -> Void)?>
    private var failed: ((TransportError) -> UInt64)? {
        get { boundFailed.value }
        set { boundFailed.value = newValue }
    }
    private let boundFailed: LoopBound<((TransportError) -> UInt64)?>
    private var paused: Bool { _read { yield boundPaused.value } _modify { yield &boundPaused.value } }
    private let boundPaused: LoopBound<Bool>
    private var closed: Bool { _read { yield boundClosed.value } _modify { yield &boundClosed.value } }
    private let boundClosed: LoopBound<Bool>

    /// Binds and listens on the first resolved address of `endpoint` that works (non-blocking).
    package init(_ endpoint: Endpoint, loop: EventLoop, backlog: Int32 = 128) throws(TransportError) {
        _ = POSIX.ignoreSIGPIPE
        var reasons: [String] = []
        var bound: Int32?
        for address in try SocketAddress.resolve(endpoint, passive: true) where bound == nil {
            switch Listener.bindAndListen(address, backlog: backlog) {
            case .success(let fd): bound = fd
            case .failure(let failure): reasons.append("\(address.text): \(failure.message)")
            }
        }
        guard let fd = bound else { throw .bind(endpoint.description, reasons.joined(separator: "; ")) }
        guard let local = SocketAddress.local(of: fd) else {
            let reason = POSIX.describe("getsockname", errno: errno)
            POSIX.closeDescriptor(fd)
            throw .bind(endpoint.description, reason)
        }
        descriptor = fd
        self.endpoint = local.endpoint
        boundAccepted = LoopBound(nil, owner: loop.owner)
        boundFailed = LoopBound(nil, owner: loop.owner)
        boundPaused = LoopBound(false, owner: loop.owner)
        boundClosed = LoopBound(false, owner: loop.owner)
        self.loop = loop
    }

    /// Watches a socket that already listens (non-blocking), such as a Unix socket made by
    /// `UnixSocket.listen`; the listener owns the descriptor from now on.
    package init(listening descriptor: Int32, loop: EventLoop) {
        self.descriptor = descriptor
        self.endpoint = nil
        boundAccepted = LoopBound(nil, owner: loop.owner)
        boundFailed = LoopBound(nil, owner: loop.owner)
        boundPaused = LoopBound(false, owner: loop.owner)
        boundClosed = LoopBound(false, owner: loop.owner)
        self.loop = loop
    }

    deinit {
        if !boundClosed.uncheckedValue { POSIX.closeDescriptor(descriptor) }
    }

    /// Starts accepting on the loop. `accepted` gets each connection's descriptor (blocking,
    /// close-on-exec, `TCP_NODELAY` set on TCP) and peer address; `failed` gets an accept error and
    /// returns how many nanoseconds to pause (0: go on).
    package func start(accepted: @escaping (Int32, String) -> Void, failed: @escaping (TransportError) -> UInt64) {
        nonisolated(unsafe) let accepted = accepted
        nonisolated(unsafe) let failed = failed
        loop.execute { [self] in
            guard !closed else { return }
            self.accepted = accepted
            self.failed = failed
            do throws(TransportError) {
                try loop.register(descriptor, interest: .readable, handler: self)
            } catch {
                _ = failed(error)
            }
        }
    }

    package func ready(_ event: ReadinessEvent) {
        while !closed && !paused {
            switch POSIX.systemAccept(descriptor) {
            case .success(let (connection, peer)):
                if endpoint != nil {
                    POSIX.setNoDelay(connection)
                    POSIX.setKeepAlive(connection)
                }
                accepted?(connection, peer.text)
            case .failure(let failure):
                let error: TransportError
                switch failure.code {
                case EAGAIN, EWOULDBLOCK:
                    return
                case EINTR, ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    error = .descriptorsExhausted(POSIX.describe("accept", errno: failure.code))
                default:
                    error = .io(POSIX.describe("accept", errno: failure.code))
                }
                let pause = failed?(error) ?? 0
                if pause > 0 { self.pause(pause) }
            }
        }
    }

    package func loopClosing() {
        guard !closed else { return }
        closed = true
        POSIX.closeDescriptor(descriptor)
    }

    private func pause(_ nanoseconds: UInt64) {
        paused = true
        loop.setInterest(descriptor, [])
        loop.schedule(after: nanoseconds) { [self] in
            guard !closed else { return }
            paused = false
            loop.setInterest(descriptor, .readable)
        }
    }

    /// Stops listening (on the loop); connections already accepted stay open. Idempotent.
    package func close() {
        let work: @Sendable () -> Void = { [self] in
            guard !closed else { return }
            closed = true
            accepted = nil
            failed = nil
            loop.deregister(descriptor)
            POSIX.closeDescriptor(descriptor)
        }
        if loop.inEventLoop { work() } else { loop.execute(work) }
    }
}

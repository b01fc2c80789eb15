import Foundation
import Synchronization
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket.
///
/// `accept()` blocks (call it from a dedicated thread); `close()` from any thread wakes every
/// blocked `accept()`, which then throws `.closed`. Accepting waits in `poll` on the listening
/// socket and a wake-up pipe, so closing works the same on Linux and Darwin.
///
/// The descriptors are closed exactly once, after `close()` and the last `accept()` return.
package final class Listener: Sendable {
    /// Whether `close()` was called, the `accept()` calls under way, and whether the descriptors
    /// are closed.
    private struct State {
        var closed = false
        var inFlight = 0
        var descriptorsClosed = false
    }

    /// The address and port actually bound (the real port when port 0 was asked for).
    package let endpoint: Endpoint

    private let state = Mutex(State())
    private let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Binds and listens on the first resolved address of `endpoint` that works (`SO_REUSEADDR` set).
    package init(_ endpoint: Endpoint, backlog: Int32 = 128) throws(TransportError) {
        _ = POSIX.ignoreSIGPIPE
        let addresses = try SocketAddress.resolve(endpoint, passive: true)
        var reasons: [String] = []
        var bound: Int32?
        for address in addresses {
            switch Listener.bindAndListen(address, backlog: backlog) {
            case .success(let fd):
                bound = fd
            case .failure(let failure):
                reasons.append("\(address.text): \(failure.message)")
            }
            if bound != nil { break }
        }
        guard let fd = bound else { throw .bind(endpoint.description, reasons.joined(separator: "; ")) }
        guard let local = SocketAddress.local(of: fd) else {
            let reason = POSIX.describe("getsockname", errno: errno)
            POSIX.closeDescriptor(fd)
            throw .bind(endpoint.description, reason)
        }
        switch POSIX.makePipe() {
        case .success(let ends):
            (wakeRead, wakeWrite) = ends
        case .failure(let failure):
            POSIX.closeDescriptor(fd)
            throw .bind(endpoint.description, POSIX.describe("pipe", errno: failure.code))
        }
        descriptor = fd
        self.endpoint = local.endpoint
    }

    deinit {
        state.withLock { state in
            if !state.descriptorsClosed { closeDescriptors(&state) }
        }
    }

    /// Waits for the next connection and returns its opened streams (`TCP_NODELAY` set).
    /// Throws `.closed` once `close()` was called, `.descriptorsExhausted` when no descriptor is
    /// left for the connection (it stays in the backlog: back off before calling again, or this
    /// returns at once), `.io` if accepting fails otherwise.
    package func accept() throws(TransportError) -> StreamPair {
        let fd: Int32? = state.withLock { state in
            if state.closed { return nil }
            state.inFlight += 1
            return descriptor
        }
        guard let fd else { throw .closed }
        defer {
            state.withLock { state in
                state.inFlight -= 1
                if state.closed && state.inFlight == 0 && !state.descriptorsClosed { closeDescriptors(&state) }
            }
        }
        while true {
            var entries = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 2, -1)
            if ready < 0 {
                let code = errno
                if code == EINTR { continue }
                throw .io(POSIX.describe("poll", errno: code))
            }
            if entries[1].revents != 0 || state.withLock({ $0.closed }) { throw .closed }
            switch POSIX.systemAccept(fd) {
            case .success(let (connection, peer)):
                POSIX.setNoDelay(connection)
                return StreamPair(socket: connection, remote: peer.text)
            case .failure(let failure):
                switch failure.code {
                case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO:
                    continue  // Taken by another thread, or gone before we got to it.
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    throw .descriptorsExhausted(POSIX.describe("accept", errno: failure.code))
                default:
                    throw .io(POSIX.describe("accept", errno: failure.code))
                }
            }
        }
    }

    /// Stops listening; blocked and later `accept()` calls throw `.closed`, accepted pairs stay open. Idempotent.
    package func close() {
        state.withLock { state in
            if state.closed { return }
            state.closed = true
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
            if state.inFlight == 0 && !state.descriptorsClosed { closeDescriptors(&state) }
        }
    }

    /// Closes the listening socket and the pipe (with `state`'s lock held).
    private func closeDescriptors(_ state: inout State) {
        state.descriptorsClosed = true
        POSIX.closeDescriptor(descriptor)
        POSIX.closeDescriptor(wakeRead)
        POSIX.closeDescriptor(wakeWrite)
    }

    /// Makes a socket bound to `address` and listening, non-blocking so a lost race in `accept` cannot hang.
    package static func bindAndListen(_ address: SocketAddress, backlog: Int32) -> Result<Int32, Connector.Failure> {
        let fd: Int32
        switch POSIX.makeSocket(family: address.family) {
        case .success(let made): fd = made
        case .failure(let failure): return .failure(.init(message: POSIX.describe("socket", errno: failure.code)))
        }
        func fail(_ what: String, _ code: Int32) -> Result<Int32, Connector.Failure> {
            POSIX.closeDescriptor(fd)
            return .failure(.init(message: POSIX.describe(what, errno: code)))
        }
        var code = POSIX.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        if code != 0 { return fail("setsockopt(SO_REUSEADDR)", code) }
        if address.withSockaddr({ bind(fd, $0, $1) }) != 0 { return fail("bind", errno) }
        if listen(fd, backlog) != 0 { return fail("listen", errno) }
        code = POSIX.setNonBlocking(fd, true)
        if code != 0 { return fail("fcntl", code) }
        return .success(fd)
    }
}

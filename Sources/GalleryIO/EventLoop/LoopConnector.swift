import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// An outbound connection made on an event loop: non-blocking `connect` to each resolved address
/// in turn, the loop told when the socket becomes writable, all within a deadline.
///
/// Name resolution (`getaddrinfo`) runs on the loop and blocks it for a host name that is not a
/// numeric address. Its state is `LoopBound` to the loop's thread (the loop alone calls it back).
package final class LoopConnector: ReadinessHandler, Sendable {
    private let loop: EventLoop
    private let label: String
    private var addresses: [SocketAddress] { _read { yield boundAddresses.value } _modify { yield &boundAddresses.value } }
    private let boundAddresses: LoopBound<[SocketAddress]>
    private var reasons: [String] { _read { yield boundReasons.value } _modify { yield &boundReasons.value } }
    private let boundReasons: LoopBound<[String]>
    private var descriptor: Int32 { _read { yield boundDescriptor.value } _modify { yield &boundDescriptor.value } }
    private let boundDescriptor: LoopBound<Int32>
    private var current: SocketAddress? { _read { yield boundCurrent.value } _modify { yield &boundCurrent.value } }
    private let boundCurrent: LoopBound<SocketAddress?>
    private var deadlineTimer: EventLoop.TimerID? { _read { yield boundDeadlineTimer.value } _modify { yield &boundDeadlineTimer.value } }
    private let boundDeadlineTimer: LoopBound<EventLoop.TimerID?>
    private typealias Completion = (Result<(Int32, String), TransportError>) -> Void
    /// Forwarded by `get`/`set`: a closure yielded by `_read`/`_modify` crashes the Swift 6.3 compiler.
    private var completion: Completion? {
        get { boundCompletion.value }
        set { boundCompletion.value = newValue }
    }
    private let boundCompletion: LoopBound<Completion?>

    private init(loop: EventLoop, label: String, addresses: [SocketAddress], completion: @escaping (Result<(Int32, String), TransportError>) -> Void) {
        self.loop = loop
        self.label = label
        boundAddresses = LoopBound(addresses, owner: loop.owner)
        boundReasons = LoopBound([], owner: loop.owner)
        boundDescriptor = LoopBound(-1, owner: loop.owner)
        boundCurrent = LoopBound(nil, owner: loop.owner)
        boundDeadlineTimer = LoopBound(nil, owner: loop.owner)
        boundCompletion = LoopBound(completion, owner: loop.owner)
    }

    /// Connects to `endpoint` within `timeout`; `completion` runs on the loop with the connected
    /// descriptor (close-on-exec, `TCP_NODELAY` set) and its address, or why it failed.
    package static func connect(
        to endpoint: Endpoint, on loop: EventLoop, timeout: Duration,
        completion: @escaping @Sendable (Result<(Int32, String), TransportError>) -> Void
    ) {
        loop.execute {
            _ = POSIX.ignoreSIGPIPE
            let addresses: [SocketAddress]
            do throws(TransportError) {
                addresses = try SocketAddress.resolve(endpoint, passive: false)
            } catch {
                completion(.failure(error))
                return
            }
            let connector = LoopConnector(loop: loop, label: endpoint.description, addresses: addresses, completion: completion)
            connector.deadlineTimer = loop.schedule(after: UInt64(max(timeout.nanoseconds, 1_000_000))) {
                connector.fail(ETIMEDOUT, what: "connect", giveUp: true)
            }
            connector.tryNext()
        }
    }

    private func tryNext() {
        guard completion != nil else { return }
        guard !addresses.isEmpty else {
            finish(.failure(.connect(label, reasons.isEmpty ? "no addresses" : reasons.joined(separator: "; "))))
            return
        }
        let address = addresses.removeFirst()
        current = address
        switch POSIX.makeSocket(family: address.family) {
        case .success(let made): descriptor = made
        case .failure(let failure):
            reasons.append("\(address.text): \(POSIX.describe("socket", errno: failure.code))")
            tryNext()
            return
        }
        POSIX.setNonBlocking(descriptor, true)
        let status = address.withSockaddr { POSIX.systemConnect(descriptor, $0, $1) }
        if status == 0 {
            succeed()
            return
        }
        let code = errno
        guard code == EINPROGRESS || code == EINTR else {
            fail(code, what: "connect", giveUp: false)
            return
        }
        do {
            try loop.register(descriptor, interest: .writable, handler: self)
        } catch {
            fail(EBADF, what: "epoll", giveUp: false)
        }
    }

    package func ready(_ event: ReadinessEvent) {
        loop.deregister(descriptor)
        var socketError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &socketError, &length) != 0 { socketError = errno }
        if socketError != 0 {
            fail(socketError, what: "connect", giveUp: false)
        } else {
            succeed()
        }
    }

    package func loopClosing() {
        if descriptor >= 0 { POSIX.closeDescriptor(descriptor) }
        descriptor = -1
        completion = nil
    }

    private func succeed() {
        let fd = descriptor
        descriptor = -1
        POSIX.setNoDelay(fd)
        POSIX.setKeepAlive(fd)
        finish(.success((fd, current?.text ?? label)))
    }

    private func fail(_ code: Int32, what: String, giveUp: Bool) {
        if descriptor >= 0 {
            loop.deregister(descriptor)
            POSIX.closeDescriptor(descriptor)
            descriptor = -1
        }
        if let current { reasons.append("\(current.text): \(POSIX.describe(what, errno: code))") }
        if giveUp { addresses = [] }
        tryNext()
    }

    private func finish(_ result: Result<(Int32, String), TransportError>) {
        if let deadlineTimer { loop.cancel(deadlineTimer) }
        deadlineTimer = nil
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }
}

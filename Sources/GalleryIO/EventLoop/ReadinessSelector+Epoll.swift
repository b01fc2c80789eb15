#if canImport(Glibc)
import CEventPoll
import Glibc

/// Linux readiness selector: one `epoll` instance, woken by a pipe.
///
/// `@unchecked Sendable`: the epoll descriptor is used by the loop's thread only; `wakeUp()`
/// writes one byte to a non-blocking pipe, which is safe from any thread.
package final class EpollSelector: ReadinessSelecting, @unchecked Sendable {
    private let epoll: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var events: [epoll_event]
    private var closed = false

    /// Makes the epoll instance and its wake-up pipe.
    package init(capacity: Int = 256) throws(TransportError) {
        let made = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard made >= 0 else { throw .io(POSIX.describe("epoll_create1", errno: errno)) }
        switch POSIX.makePipe() {
        case .success(let ends):
            (wakeRead, wakeWrite) = ends
        case .failure(let failure):
            POSIX.closeDescriptor(made)
            throw .io(POSIX.describe("pipe", errno: failure.code))
        }
        epoll = made
        events = Array(repeating: epoll_event(), count: capacity)
        var wake = epoll_event()
        wake.events = EPOLLIN.rawValue
        wake.data.fd = wakeRead
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wakeRead, &wake) == 0 else {
            let code = errno
            close()
            throw .io(POSIX.describe("epoll_ctl", errno: code))
        }
    }

    deinit { close() }

    private func control(_ operation: Int32, _ descriptor: Int32, _ interest: ReadinessInterest) throws(TransportError) {
        var event = epoll_event()
        event.events = (interest.contains(.readable) ? EPOLLIN.rawValue | EPOLLRDHUP.rawValue : 0)
            | (interest.contains(.writable) ? EPOLLOUT.rawValue : 0)
        event.data.fd = descriptor
        guard epoll_ctl(epoll, operation, descriptor, &event) == 0 else {
            throw .io(POSIX.describe("epoll_ctl", errno: errno))
        }
    }

    package func register(_ descriptor: Int32, interest: ReadinessInterest) throws(TransportError) {
        try control(EPOLL_CTL_ADD, descriptor, interest)
    }

    package func modify(_ descriptor: Int32, interest: ReadinessInterest) throws(TransportError) {
        try control(EPOLL_CTL_MOD, descriptor, interest)
    }

    package func deregister(_ descriptor: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event)
    }

    package func wait(timeoutMilliseconds: Int32) -> [ReadinessEvent] {
        let count = events.withUnsafeMutableBufferPointer {
            epoll_wait(epoll, $0.baseAddress, Int32($0.count), timeoutMilliseconds)
        }
        guard count > 0 else { return [] }
        var ready: [ReadinessEvent] = []
        ready.reserveCapacity(Int(count))
        for event in events[..<Int(count)] {
            let descriptor = event.data.fd
            if descriptor == wakeRead {
                var sink = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &sink, sink.count) > 0 {}
                continue
            }
            let flags = event.events
            ready.append(ReadinessEvent(
                descriptor: descriptor,
                readable: flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0,
                writable: flags & EPOLLOUT.rawValue != 0,
                hangup: flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0))
        }
        return ready
    }

    package func wakeUp() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    package func close() {
        if closed { return }
        closed = true
        POSIX.closeDescriptor(epoll)
        POSIX.closeDescriptor(wakeRead)
        POSIX.closeDescriptor(wakeWrite)
    }
}
#endif

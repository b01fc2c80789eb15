#if canImport(Glibc)
import CEventPoll
import Glibc
import Synchronization

/// Linux readiness selector: one `epoll` instance, woken by a pipe. Its event buffer is bound to
/// the loop's thread (`owner`); `wakeUp()` writes a byte to a non-blocking pipe, from any thread.
package final class EpollSelector: ReadinessSelecting, Sendable {
    private let epoll: Int32
    private let wake: WakePipe
    private let events: LoopBound<[epoll_event]>
    private let closed = Atomic(false)

    /// Makes the epoll instance and its wake-up pipe, its wait bound to `owner`'s thread.
    package init(capacity: Int = 256, owner: OwningThread = OwningThread()) throws(TransportError) {
        let made = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard made >= 0 else { throw .io(POSIX.describe("epoll_create1", errno: errno)) }
        wake = try WakePipe(closingOnFailure: made)
        epoll = made
        events = LoopBound(Array(repeating: epoll_event(), count: capacity), owner: owner)
        var watch = epoll_event()
        watch.events = EPOLLIN.rawValue
        watch.data.fd = wake.readEnd
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wake.readEnd, &watch) == 0 else {
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
        let count = events.value.withUnsafeMutableBufferPointer {
            epoll_wait(epoll, $0.baseAddress, Int32($0.count), timeoutMilliseconds)
        }
        guard count > 0 else { return [] }
        var ready: [ReadinessEvent] = []
        ready.reserveCapacity(Int(count))
        for event in events.value[..<Int(count)] {
            let descriptor = event.data.fd
            if descriptor == wake.readEnd {
                wake.drain()
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
        wake.wake()
    }

    package func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        POSIX.closeDescriptor(epoll)
        wake.close()
    }
}
#endif

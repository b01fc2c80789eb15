#if canImport(Darwin)
import Darwin

/// Darwin readiness selector: one `kqueue`, woken by a pipe.
///
/// Not exercised by the Linux test suite (kept compiling in principle). `@unchecked Sendable`:
/// the kqueue is used by the loop's thread only; `wakeUp()` writes to a non-blocking pipe.
// unchecked Sendable: the kqueue is its loop thread's; `wakeUp()` writes a byte to a non-blocking pipe
package final class KqueueSelector: ReadinessSelecting, @unchecked Sendable {
    private let queue: Int32
    private let wake: WakePipe
    private var interests: [Int32: ReadinessInterest] = [:]
    /// What `wait` fills, kept from one wait to the next (as the epoll selector's).
    private var events = [kevent](repeating: kevent(), count: 256)
    private var closed = false

    /// Makes the kqueue and its wake-up pipe.
    package init() throws(TransportError) {
        let made = kqueue()
        guard made >= 0 else { throw .io(POSIX.describe("kqueue", errno: errno)) }
        wake = try WakePipe(closingOnFailure: made)
        queue = made
        change(wake.readEnd, filter: Int16(EVFILT_READ), add: true)
    }

    deinit { close() }

    /// Adds or deletes one filter of `descriptor`; the `errno` of a failure, nil on success.
    @discardableResult
    private func change(_ descriptor: Int32, filter: Int16, add: Bool) -> Int32? {
        var event = kevent(
            ident: UInt(descriptor), filter: filter, flags: UInt16(add ? EV_ADD : EV_DELETE),
            fflags: 0, data: 0, udata: nil)
        return kevent(queue, &event, 1, nil, 0, nil) < 0 ? errno : nil
    }

    /// Adds and deletes filters from `old` to `new`; throws the first failure to add one (as
    /// `epoll_ctl` does), ignoring failed deletes (of a descriptor already closed).
    private func apply(_ descriptor: Int32, from old: ReadinessInterest, to new: ReadinessInterest) throws(TransportError) {
        interests[descriptor] = new
        let filters: [(interest: ReadinessInterest, filter: Int16)] = [
            (interest: .readable, filter: Int16(EVFILT_READ)), (interest: .writable, filter: Int16(EVFILT_WRITE)),
        ]
        for entry in filters where old.contains(entry.interest) != new.contains(entry.interest) {
            let adding = new.contains(entry.interest)
            if let code = change(descriptor, filter: entry.filter, add: adding), adding {
                throw TransportError.io(POSIX.describe("kevent", errno: code))
            }
        }
    }

    package func register(_ descriptor: Int32, interest: ReadinessInterest) throws(TransportError) {
        try apply(descriptor, from: [], to: interest)
    }

    package func modify(_ descriptor: Int32, interest: ReadinessInterest) throws(TransportError) {
        try apply(descriptor, from: interests[descriptor] ?? [], to: interest)
    }

    package func deregister(_ descriptor: Int32) {
        try? apply(descriptor, from: interests[descriptor] ?? [], to: [])
        interests[descriptor] = nil
    }

    package func wait(timeoutMilliseconds: Int32) -> [ReadinessEvent] {
        var timeout = timespec(tv_sec: Int(timeoutMilliseconds / 1000), tv_nsec: Int(timeoutMilliseconds % 1000) * 1_000_000)
        // Through a buffer pointer, as the epoll selector: `&events` and `events.count` in one
        // call would be overlapping accesses to the array.
        let queue = self.queue
        let count = events.withUnsafeMutableBufferPointer { buffer in
            timeoutMilliseconds < 0
                ? kevent(queue, nil, 0, buffer.baseAddress, Int32(buffer.count), nil)
                : kevent(queue, nil, 0, buffer.baseAddress, Int32(buffer.count), &timeout)
        }
        guard count > 0 else { return [] }
        var ready: [Int32: ReadinessEvent] = [:]
        for event in events[..<Int(count)] {
            let descriptor = Int32(event.ident)
            if descriptor == wake.readEnd {
                wake.drain()
                continue
            }
            var entry = ready[descriptor] ?? ReadinessEvent(descriptor: descriptor, readable: false, writable: false, hangup: false)
            if event.filter == Int16(EVFILT_READ) { entry.readable = true }
            if event.filter == Int16(EVFILT_WRITE) { entry.writable = true }
            if event.flags & UInt16(EV_EOF) != 0 || event.flags & UInt16(EV_ERROR) != 0 { entry.hangup = true }
            ready[descriptor] = entry
        }
        return Array(ready.values)
    }

    package func wakeUp() {
        wake.wake()
    }

    package func close() {
        if closed { return }
        closed = true
        POSIX.closeDescriptor(queue)
        wake.close()
    }
}
#endif

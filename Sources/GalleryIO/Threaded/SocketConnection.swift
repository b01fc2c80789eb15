import Foundation

/// One connected socket descriptor shared by the two streams of a pair.
///
/// Closing either stream shuts the socket down (`SHUT_RDWR`), which wakes a thread blocked in
/// `recv` or `send`. The descriptor itself is closed exactly once: as soon as it is shut down and
/// no call is in flight, or at deinit (when both streams are gone). Calls in flight are counted
/// under the lock, so the descriptor number cannot be closed and reused by an unrelated `open`
/// while a thread is still about to pass it to `recv`.
// unchecked Sendable: a lock around a C resource: every mutable field and both streams' status are under `lock`
final class SocketConnection: @unchecked Sendable {
    /// Guards this object and the status and error of both streams built on it.
    let lock = NSLock()
    private let descriptor: Int32
    private var shut = false
    private var inFlight = 0
    private var descriptorClosed = false

    /// Takes ownership of a connected socket descriptor.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        if !descriptorClosed { POSIX.closeDescriptor(descriptor) }
    }

    /// True once either stream has been closed. Call with `lock` held.
    var isShutLocked: Bool { shut }

    /// Starts a system call: the descriptor, or nil once shut. Call with `lock` held, and
    /// balance a non-nil result with `endLocked()`.
    func beginLocked() -> Int32? {
        if shut { return nil }
        inFlight += 1
        return descriptor
    }

    /// Ends a system call started by `beginLocked()`. Call with `lock` held.
    func endLocked() {
        inFlight -= 1
        closeIfIdleLocked()
    }

    /// Opens one stream of the pair: its status goes from not open to open.
    func open(_ status: inout Stream.Status) {
        lock.withLock {
            if status == .notOpen { status = .open }
        }
    }

    /// Closes one stream of the pair, which shuts the whole connection down.
    func close(_ status: inout Stream.Status) {
        lock.withLock {
            if status == .closed { return }
            status = .closed
            shutLocked()
        }
    }

    /// Shuts the socket down in both directions (waking blocked calls); idempotent. Call with `lock` held.
    func shutLocked() {
        if shut { return }
        shut = true
        POSIX.shutdownBoth(descriptor)
        closeIfIdleLocked()
    }

    private func closeIfIdleLocked() {
        if shut && inFlight == 0 && !descriptorClosed {
            descriptorClosed = true
            POSIX.closeDescriptor(descriptor)
        }
    }
}

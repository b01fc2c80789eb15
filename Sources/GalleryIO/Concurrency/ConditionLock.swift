import Foundation

/// State behind a lock with a condition to wait on: `Mutex` for state that threads also wait on
/// (a queue's consumer for jobs, a producer for room, a caller for an outcome). The state is
/// reached only inside `withLock`, so a type that keeps its mutable state in one is plainly
/// `Sendable` and the compiler checks the rest of it.
///
/// Waiting is expressed as a body that returns nil to wait and is run again, with a fresh access
/// to the state, after each wake-up: no access to the state spans a wait.
// unchecked Sendable: `state` is reached only inside `withLock`, with `condition` held (Mutex's rule, plus waiting)
package final class ConditionLock<State>: @unchecked Sendable {
    // Not private, so that the methods can be inlined into the callers in other modules (a lock
    // round on a node's inbox costs what the `NSCondition` round costs, no generic call).
    @usableFromInline let condition = NSCondition()
    @usableFromInline var state: State

    @inlinable
    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with the lock held and returns its result.
    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&state)
    }

    /// Runs `body` with the lock held, and again after each wake-up while it returns nil (waiting
    /// for a `broadcast` in between); returns its first non-nil result, or nil once `deadline`
    /// passed with `body` still answering nil (it is run once more after the deadline).
    @inlinable
    package func withLock<Result, Failure: Error>(
        waitingUntil deadline: Date?, _ body: (inout State) throws(Failure) -> Result?
    ) throws(Failure) -> Result? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result = try body(&state) { return result }
            if let deadline {
                if !condition.wait(until: deadline) { return try body(&state) }
            } else {
                condition.wait()
            }
        }
    }

    /// Wakes every thread waiting in `withLock(waitingUntil:_:)`; callable with or without the lock.
    @inlinable
    package func broadcast() {
        condition.broadcast()
    }

    /// Wakes one thread waiting in `withLock(waitingUntil:_:)` (for waiters that all wait for the
    /// same thing, such as a pool's threads for a job); callable with or without the lock.
    @inlinable
    package func signal() {
        condition.signal()
    }
}

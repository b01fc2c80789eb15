import Foundation

/// A thread that runs a node's checkpoints in the background, one at a time, when asked.
///
/// `@unchecked Sendable`: its state is guarded by `condition`.
package final class Checkpointer: @unchecked Sendable {
    private let condition = NSCondition()
    private var requested = false
    private var stopping = false
    private var started = false
    private var finished = false

    /// Creates a checkpointer whose thread waits for `start(_:)`; requests made before are kept.
    package init() {}

    /// Starts the thread, which calls `work` once per batch of requests until `stop()`.
    package func start(_ work: @escaping @Sendable () -> Void) {
        condition.withLock { started = true }
        Thread.detachNewThread { [self] in
            while waitForRequest() { work() }
            condition.withLock {
                finished = true
                condition.broadcast()
            }
        }
    }

    /// Asks for a checkpoint; cheap, and callable under any lock (requests made while one runs
    /// lead to one more run).
    package func request() {
        condition.withLock {
            requested = true
            condition.broadcast()
        }
    }

    /// Waits for the next request; false once stopped.
    private func waitForRequest() -> Bool {
        condition.withLock {
            while !requested && !stopping { condition.wait() }
            if stopping { return false }
            requested = false
            return true
        }
    }

    /// Stops the thread, waiting for a checkpoint that is running to finish.
    package func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
            while started && !finished { condition.wait() }
        }
    }
}

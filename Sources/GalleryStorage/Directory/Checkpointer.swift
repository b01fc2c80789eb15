import Foundation
import GalleryIO

/// A thread that runs a node's checkpoints in the background, one at a time, when asked.
package final class Checkpointer: Sendable {
    /// Whether a checkpoint is asked for, and where the thread is in its life.
    private struct State {
        var requested = false
        var stopping = false
        var started = false
        var finished = false
    }

    private let state = ConditionLock(State())

    /// Creates a checkpointer whose thread waits for `start(_:)`; requests made before are kept.
    package init() {}

    /// Starts the thread, which calls `work` once per batch of requests until `stop()`.
    package func start(_ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.started = true }
        Thread.detachNewThread { [self] in
            while waitForRequest() { work() }
            state.withLock { $0.finished = true }
            state.broadcast()
        }
    }

    /// Asks for a checkpoint; cheap, and callable under any lock (requests made while one runs
    /// lead to one more run).
    package func request() {
        state.withLock { $0.requested = true }
        state.broadcast()
    }

    /// Waits for the next request; false once stopped.
    private func waitForRequest() -> Bool {
        state.withLock(waitingUntil: nil) { state -> Bool? in
            if state.stopping { return false }
            guard state.requested else { return nil }
            state.requested = false
            return true
        } ?? false
    }

    /// Stops the thread, waiting for a checkpoint that is running to finish.
    package func stop() {
        state.withLock { $0.stopping = true }
        state.broadcast()
        _ = state.withLock(waitingUntil: nil) { state in state.started && !state.finished ? nil : () }
    }
}

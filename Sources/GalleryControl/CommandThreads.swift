import Foundation
import GalleryIO

/// The threads that carry out the control socket's commands, one command each at a time: parked
/// between commands and reused, so that a command costs its thread a wake-up, not a thread start
/// (on the path of every `gallery` command: a drop's placeholder waits for it). At most
/// `maximumParked` wait parked (a burst of commands leaves no more behind: the others end as they
/// finish), and a parked thread idle for `idleTimeout` ends, so an idle node holds none. How many
/// run at once is bounded by the node's command slots (`ControlDispatch.maximumCommandThreads`), counted
/// by the caller.
final class CommandThreads: Sendable {
    private struct State {
        /// Commands handed over and not yet taken by a thread.
        var jobs: [@Sendable () -> Void] = []
        var threads = 0
        /// Threads parked waiting for a command.
        var idle = 0
        var started = 0
    }

    /// How long a parked thread waits for a command before it ends.
    let idleTimeout: TimeInterval
    /// The most threads parked at once.
    let maximumParked: Int
    private let state = ConditionLock(State())

    init(idleTimeout: TimeInterval = 10, maximumParked: Int = 2) {
        self.idleTimeout = idleTimeout
        self.maximumParked = max(1, maximumParked)
    }

    /// Threads started so far (each start is a command that found no parked thread).
    var threadsStarted: Int {
        state.withLock { $0.started }
    }

    /// Threads parked, waiting for a command.
    var parkedThreads: Int {
        state.withLock { $0.idle }
    }

    /// Threads running a command or parked.
    var liveThreads: Int {
        state.withLock { $0.threads }
    }

    /// Runs `job` on a parked thread, or on a new one when none is parked.
    func run(_ job: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.jobs.append(job)
            // A parked thread signalled but not yet awake still counts as idle, and the job it
            // will take is still queued: a thread starts when more jobs wait than threads park.
            if state.idle > 0 { self.state.signal() }
            guard state.jobs.count > state.idle else { return }
            state.threads += 1
            state.started += 1
            let thread = Thread { [self] in work() }
            thread.name = "gallery-command"
            thread.start()
        }
    }

    /// A thread: runs commands until none comes for `idleTimeout`.
    private func work() {
        while true {
            let deadline = Date().addingTimeInterval(idleTimeout)
            var parked = false
            // Whether this thread has parked in this round (a thread that finds the parking
            // full on its way back from a command ends instead).
            var parkedBefore = false
            let job = state.withLock(waitingUntil: deadline) { state -> (@Sendable () -> Void)?? in
                if parked {
                    state.idle -= 1
                    parked = false
                }
                if !state.jobs.isEmpty { return .some(state.jobs.removeFirst()) }
                if Date() >= deadline || (!parkedBefore && state.idle >= maximumParked) {
                    state.threads -= 1
                    return .some(nil)
                }
                state.idle += 1
                parked = true
                parkedBefore = true
                return nil
            }
            guard let job = job ?? nil else { return }
            job()
        }
    }
}

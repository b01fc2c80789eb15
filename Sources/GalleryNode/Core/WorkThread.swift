import Foundation
import GalleryIO
import Synchronization
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A serial executor on one dedicated thread: jobs run one at a time, in the order they were
/// queued. The node's inbox (`SyncNode.loop`), its group-commit writer and each `NodeEvents`
/// subscriber run on one each.
///
/// Why a thread of its own rather than a Dispatch serial queue: the node must keep working at its
/// descriptor limit, and libdispatch makes descriptors (epoll, eventfd) on first use and traps when
/// it cannot (see `Connection.close`); a thread and an `NSCondition` need none. The thread is made
/// when work arrives and ends after `idleTimeout` without work, so a stopped or idle node holds no
/// thread for it.
///
/// The queue is bounded: `async` from another thread waits while `limit` jobs are queued, which
/// carries backpressure from a busy loop back to whoever queues (a command's thread, a timer).
/// Jobs queued from the thread itself never wait.
final class WorkThread: Sendable {
    /// The jobs queued and the thread that runs them.
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var thread: Thread?
        /// Whether the thread waits for work (only then does `async` wake it).
        var idle = false
        /// Producers waiting for room in the queue.
        var blocked = 0
    }

    /// The thread's name (for debuggers and `top -H`).
    let name: String
    /// The most jobs queued before `async` from another thread waits.
    let limit: Int
    /// How long the thread waits for work before it ends.
    let idleTimeout: TimeInterval
    private let queue = ConditionLock(Queue())
    /// The running thread's `pthread_self()`, 0 while none runs: `isCurrent` without a lock, cheap
    /// enough to check on every access to the state the executor owns.
    private let owner = Atomic<UInt>(0)

    /// Creates an executor; its thread starts with the first job.
    init(name: String, limit: Int = 4_096, idleTimeout: TimeInterval = 2) {
        self.name = name
        self.limit = max(1, limit)
        self.idleTimeout = idleTimeout
    }

    /// Whether the caller runs on this executor's thread.
    var isCurrent: Bool {
        owner.load(ordering: .acquiring) == Self.currentThreadID
    }

    /// The calling thread's `pthread_self()` as a number.
    private static var currentThreadID: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Queues a job; waits first while the queue is full, unless called from the executor itself.
    func async(_ job: @escaping @Sendable () -> Void) {
        let onThread = isCurrent
        var waiting = false
        // Run again after each wake-up while the queue is full (counted blocked meanwhile).
        _ = queue.withLock(waitingUntil: nil) { queue -> Void? in
            if waiting {
                queue.blocked -= 1
                waiting = false
            }
            if !onThread && queue.jobs.count >= limit {
                queue.blocked += 1
                waiting = true
                return nil
            }
            queue.jobs.append(job)
            if queue.thread == nil {
                let worker = Thread { [self] in run() }
                worker.name = name
                queue.thread = worker
                worker.start()
            } else if queue.idle {
                self.queue.broadcast()
            }
            return ()
        }
    }

    /// Runs `body` on the executor and returns its result; runs it in place when called from the
    /// executor itself.
    func sync<T>(_ body: () throws -> T) throws -> T {
        if isCurrent { return try body() }
        return try withoutActuallyEscaping(body) { body in
            let box = UncheckedBox<Result<T, any Error>?>(nil)
            // Released before the caller is woken: `body` must not outlive this call.
            let job = UncheckedBox<(() throws -> T)?>(body)
            let done = Completion()
            async {
                box.value = Result { try job.value!() }
                job.value = nil
                done.signal()
            }
            done.wait()
            return try box.value!.get()
        }
    }

    /// Runs `body` on the executor and returns its result (non-throwing form).
    func sync<T>(_ body: () -> T) -> T {
        // The throwing form throws only what `body` throws.
        // swiftlint:disable:next force_try
        try! sync { () throws -> T in body() }
    }

    /// Waits until every job queued before this call has run.
    func drain() {
        sync {}
    }

    /// Runs what is queued, a batch at a time (one lock round per batch), until idle for
    /// `idleTimeout`.
    private func run() {
        owner.store(Self.currentThreadID, ordering: .releasing)
        while true {
            let deadline = Date().addingTimeInterval(idleTimeout)
            // Run again after each wake-up while no job waits (idle meanwhile); .some(nil): the
            // thread ends, idle past the deadline.
            var outcome: [@Sendable () -> Void]??
            repeat {
                outcome = queue.withLock(waitingUntil: deadline) { queue -> [@Sendable () -> Void]?? in
                    queue.idle = false
                    if queue.jobs.isEmpty {
                        if Date() >= deadline {
                            queue.thread = nil
                            owner.store(0, ordering: .releasing)
                            return .some(nil)
                        }
                        queue.idle = true
                        return nil
                    }
                    let batch = queue.jobs
                    queue.jobs.removeAll(keepingCapacity: true)
                    if queue.blocked > 0 { self.queue.broadcast() }
                    return .some(batch)
                }
            } while outcome == nil
            guard let batch = outcome ?? nil else { return }
            for job in batch { job() }
        }
    }
}

/// A value handed between threads under a happens-before edge that the compiler cannot see (a
/// `Completion`, a lock).
// unchecked Sendable: hands a value across a happens-before edge the compiler cannot see (a `Completion`, a lock)
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A one-shot signal: `wait` returns once `signal` was called (before or after).
final class Completion: Sendable {
    private let done = ConditionLock(false)

    /// Marks the completion done and wakes its waiters.
    func signal() {
        done.withLock { $0 = true }
        done.broadcast()
    }

    /// Waits until `signal` was called.
    func wait() {
        _ = done.withLock(waitingUntil: nil) { $0 ? () : nil }
    }

    /// Waits until `signal` was called or `deadline` passed; true when signalled.
    func wait(until deadline: Date) -> Bool {
        done.withLock(waitingUntil: deadline) { $0 ? true : nil } ?? false
    }
}

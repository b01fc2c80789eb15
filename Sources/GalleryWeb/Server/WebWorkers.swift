import Foundation
import GalleryIO
import Synchronization

/// A small fixed pool of threads for the web adapter's work that may block: calls into the node's
/// inbox (`read`, `perform`, `readDurable` wait for the node's thread), file I/O of uploads and
/// blobs. The event loops hand such work here and take the answer back with `execute`, so that no
/// loop thread ever waits on the node or on a disk.
///
/// Work comes in lanes (`WebWorkers.Lane`): one per connection, whose jobs run one at a time in the
/// order given (a request's upload chunks, then its answer), while different lanes run side by side
/// on the pool. Each connection has at most one lane job queued or running per step of its state
/// machine, so the queue is bounded by the number of connections.
///
final class WebWorkers: Sendable {
    /// A serial queue of jobs over the pool.
    final class Lane: Sendable {
        private unowned let pool: WebWorkers
        /// The jobs not yet run, and whether a drain is queued on the pool.
        private let jobs = Mutex<(queued: [@Sendable () -> Void], scheduled: Bool)>(([], false))

        fileprivate init(pool: WebWorkers) {
            self.pool = pool
        }

        /// Queues `job` after the lane's earlier jobs; callable from any thread.
        func submit(_ job: @escaping @Sendable () -> Void) {
            let schedule = jobs.withLock { jobs -> Bool in
                jobs.queued.append(job)
                if jobs.scheduled { return false }
                jobs.scheduled = true
                return true
            }
            if schedule { pool.enqueue { [self] in drain() } }
        }

        /// Runs the lane's jobs until none is left (on a pool thread).
        private func drain() {
            while true {
                let next = jobs.withLock { jobs -> (@Sendable () -> Void)? in
                    guard !jobs.queued.isEmpty else {
                        jobs.scheduled = false
                        return nil
                    }
                    return jobs.queued.removeFirst()
                }
                guard let next else { return }
                next()
            }
        }
    }

    /// The pool's queue: jobs before `head` have been taken.
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var stopped = false
    }

    /// Threads in the pool: enough that a few slow node calls (a drop waiting for its fsync) do not
    /// hold up every page, few enough to stay a fixed cost.
    static let defaultCount = 8

    private let queue = ConditionLock(Queue())

    /// Starts `count` threads named `gallery-web-N`.
    init(count: Int = WebWorkers.defaultCount) {
        for index in 0..<max(count, 1) {
            let thread = Thread { [self] in run() }
            thread.name = "gallery-web-\(index)"
            thread.start()
        }
    }

    /// A new lane over this pool.
    func lane() -> Lane { Lane(pool: self) }

    /// Ends the threads once the jobs queued so far have run.
    func stop() {
        queue.withLock { $0.stopped = true }
        queue.broadcast()
    }

    fileprivate func enqueue(_ job: @escaping @Sendable () -> Void) {
        queue.withLock { $0.jobs.append(job) }
        queue.signal()
    }

    private func run() {
        while true {
            let job = queue.withLock(waitingUntil: nil) { queue -> (@Sendable () -> Void)?? in
                guard queue.head < queue.jobs.count else { return queue.stopped ? .some(nil) : nil }
                let job = queue.jobs[queue.head]
                queue.head += 1
                if queue.head > 1024 && queue.head * 2 > queue.jobs.count {
                    queue.jobs.removeFirst(queue.head)
                    queue.head = 0
                }
                return .some(job)
            }
            guard let job = job ?? nil else { return }
            job()
        }
    }
}

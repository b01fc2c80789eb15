import Foundation

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
/// `@unchecked Sendable`: the queue is guarded by `condition`.
final class WebWorkers: @unchecked Sendable {
    /// A serial queue of jobs over the pool.
    ///
    /// `@unchecked Sendable`: its queue is guarded by `lock`.
    final class Lane: @unchecked Sendable {
        private unowned let pool: WebWorkers
        private let lock = NSLock()
        // Guarded by `lock`.
        private var jobs: [@Sendable () -> Void] = []
        private var scheduled = false

        fileprivate init(pool: WebWorkers) {
            self.pool = pool
        }

        /// Queues `job` after the lane's earlier jobs; callable from any thread.
        func submit(_ job: @escaping @Sendable () -> Void) {
            let schedule = lock.withLock { () -> Bool in
                jobs.append(job)
                if scheduled { return false }
                scheduled = true
                return true
            }
            if schedule { pool.enqueue { [self] in drain() } }
        }

        /// Runs the lane's jobs until none is left (on a pool thread).
        private func drain() {
            while true {
                let next = lock.withLock { () -> (@Sendable () -> Void)? in
                    guard !jobs.isEmpty else {
                        scheduled = false
                        return nil
                    }
                    return jobs.removeFirst()
                }
                guard let next else { return }
                next()
            }
        }
    }

    /// Threads in the pool: enough that a few slow node calls (a drop waiting for its fsync) do not
    /// hold up every page, few enough to stay a fixed cost.
    static let defaultCount = 8

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopped = false

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
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    fileprivate func enqueue(_ job: @escaping @Sendable () -> Void) {
        condition.withLock {
            queue.append(job)
            condition.signal()
        }
    }

    private func run() {
        while true {
            let job = condition.withLock { () -> (@Sendable () -> Void)? in
                while head == queue.count && !stopped { condition.wait() }
                guard head < queue.count else { return nil }
                let job = queue[head]
                head += 1
                if head > 1024 && head * 2 > queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                return job
            }
            guard let job else { return }
            job()
        }
    }
}

import Foundation
import GalleryIO
import Synchronization
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The production `NodeWorkPool`: at most `width` threads taking lanes from one ready queue. A
/// lane with jobs waits in the queue once; a worker runs a few of its jobs (`turn`), then puts it
/// back at the end if more are queued, so that a download with a long backlog never keeps the
/// mirror's fsync or a thumbnail waiting behind all of it. Threads start when work arrives and end
/// after `idleTimeout` without work (an idle node holds none), and are named `name N` for
/// `top -H` and the thread tests.
///
/// Why threads of its own rather than Dispatch: the node must keep working at its descriptor limit,
/// where libdispatch traps (see `WorkThread`), and Dispatch's pools grow past any bound we set.
final class WorkPool: NodeWorkPool, Sendable {
    /// The lanes ready to run (those before `readyHead` were taken) and the workers.
    private struct Workers {
        var ready: [PoolLane] = []
        var readyHead = 0
        var threads = 0
        /// Workers waiting for a lane.
        var idle = 0
        var started = 0
    }

    let name: String
    let width: Int
    /// How long a worker waits for work before it ends.
    let idleTimeout: TimeInterval
    /// The most jobs of one lane a worker runs before it takes the next lane.
    static let turn = 4
    private let workers = ConditionLock(Workers())

    init(name: String, width: Int = WorkPool.defaultWidth, idleTimeout: TimeInterval = 2) {
        self.name = name
        self.width = max(1, width)
        self.idleTimeout = idleTimeout
    }

    func makeLane(_ name: String) -> any NodeExecutor {
        PoolLane(pool: self, name: name)
    }

    func async(_ job: @escaping @Sendable () -> Void) {
        PoolLane(pool: self, name: "job").async(job)
    }

    /// Queues a lane that has jobs and is neither queued nor running.
    fileprivate func schedule(_ lane: PoolLane) {
        workers.withLock { workers in
            workers.ready.append(lane)
            // An idle worker signalled but not yet woken still counts as idle, and the lane it
            // will take is still queued: a new worker starts when more lanes wait than workers idle.
            if workers.idle > 0 { self.workers.signal() }
            if workers.ready.count - workers.readyHead > workers.idle && workers.threads < width {
                workers.threads += 1
                workers.started += 1
                let index = workers.started
                let worker = Thread { [self] in run(index: index) }
                worker.start()
            }
        }
    }

    /// A worker: runs a turn of each ready lane until none is ready for `idleTimeout`.
    private func run(index: Int) {
        Thread.current.name = "\(name) \(index % 100)"
        while true {
            let deadline = Date().addingTimeInterval(idleTimeout)
            var waiting = false
            // Run again after each wake-up; nil: wait (counted idle meanwhile); .some(nil): the
            // worker ends, idle past the deadline.
            var outcome: PoolLane??
            repeat {
                outcome = workers.withLock(waitingUntil: deadline) { workers -> PoolLane?? in
                    if waiting {
                        workers.idle -= 1
                        waiting = false
                    }
                    if workers.readyHead == workers.ready.count {
                        if Date() >= deadline {
                            workers.threads -= 1
                            return .some(nil)
                        }
                        workers.idle += 1
                        waiting = true
                        return nil
                    }
                    let lane = workers.ready[workers.readyHead]
                    workers.readyHead += 1
                    if workers.readyHead == workers.ready.count {
                        workers.ready.removeAll(keepingCapacity: true)
                        workers.readyHead = 0
                    }
                    return .some(lane)
                }
            } while outcome == nil
            guard let lane = outcome ?? nil else { return }
            lane.runTurn(Self.turn)
        }
    }
}

/// A serial lane of a `WorkPool` (`NodeWorkPool.makeLane`).
final class PoolLane: NodeExecutor, Sendable {
    /// The lane's jobs (those before `head` ran), and whether the lane is in the pool's ready
    /// queue or a worker runs it.
    private struct Jobs {
        var queued: [@Sendable () -> Void] = []
        var head = 0
        var scheduled = false
    }

    private let pool: WorkPool
    let name: String
    private let jobs = Mutex(Jobs())
    /// The `pthread_self()` of the worker running the lane, 0 while none does.
    private let owner = Atomic<UInt>(0)

    fileprivate init(pool: WorkPool, name: String) {
        self.pool = pool
        self.name = name
    }

    var isCurrent: Bool {
        owner.load(ordering: .acquiring) == Self.currentThreadID
    }

    private static var currentThreadID: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    func async(_ job: @escaping @Sendable () -> Void) {
        let schedule = jobs.withLock { jobs -> Bool in
            jobs.queued.append(job)
            guard !jobs.scheduled else { return false }
            jobs.scheduled = true
            return true
        }
        if schedule { pool.schedule(self) }
    }

    func runAndWait<T>(_ body: () throws -> T) throws -> T {
        if isCurrent { return try body() }
        return try withoutActuallyEscaping(body) { body in
            let box = UncheckedBox<Result<T, any Error>?>(nil)
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

    /// Runs up to `limit` jobs on the calling worker, then queues the lane again if it has more.
    fileprivate func runTurn(_ limit: Int) {
        owner.store(Self.currentThreadID, ordering: .releasing)
        for _ in 0..<limit {
            let job = jobs.withLock { jobs -> (@Sendable () -> Void)? in
                guard jobs.head < jobs.queued.count else { return nil }
                let job = jobs.queued[jobs.head]
                jobs.head += 1
                if jobs.head == jobs.queued.count {
                    jobs.queued.removeAll(keepingCapacity: true)
                    jobs.head = 0
                }
                return job
            }
            guard let job else { break }
            job()
        }
        owner.store(0, ordering: .releasing)
        let more = jobs.withLock { jobs -> Bool in
            if jobs.head < jobs.queued.count { return true }
            jobs.scheduled = false
            return false
        }
        if more { pool.schedule(self) }
    }
}

import Foundation
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
///
/// `@unchecked Sendable`: the ready queue and the counts are guarded by `condition`.
final class WorkPool: NodeWorkPool, @unchecked Sendable {
    let name: String
    let width: Int
    /// How long a worker waits for work before it ends.
    let idleTimeout: TimeInterval
    /// The most jobs of one lane a worker runs before it takes the next lane.
    static let turn = 4
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var ready: [PoolLane] = []
    private var readyHead = 0
    private var threads = 0
    private var idle = 0
    private var started = 0

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
        condition.withLock {
            ready.append(lane)
            // An idle worker signalled but not yet woken still counts as idle, and the lane it
            // will take is still queued: a new worker starts when more lanes wait than workers idle.
            if idle > 0 { condition.signal() }
            if ready.count - readyHead > idle && threads < width {
                threads += 1
                started += 1
                let index = started
                let worker = Thread { [self] in run(index: index) }
                worker.start()
            }
        }
    }

    /// A worker: runs a turn of each ready lane until none is ready for `idleTimeout`.
    private func run(index: Int) {
        Thread.current.name = "\(name) \(index % 100)"
        while true {
            let lane = condition.withLock { () -> PoolLane? in
                let deadline = Date().addingTimeInterval(idleTimeout)
                while readyHead == ready.count {
                    idle += 1
                    let woken = condition.wait(until: deadline)
                    idle -= 1
                    if !woken && readyHead == ready.count {
                        threads -= 1
                        return nil
                    }
                }
                let lane = ready[readyHead]
                readyHead += 1
                if readyHead == ready.count {
                    ready.removeAll(keepingCapacity: true)
                    readyHead = 0
                }
                return lane
            }
            guard let lane else { return }
            lane.runTurn(Self.turn)
        }
    }
}

/// A serial lane of a `WorkPool` (`NodeWorkPool.makeLane`).
///
/// `@unchecked Sendable`: the jobs and `scheduled` are guarded by `lock`; `owner` is atomic.
final class PoolLane: NodeExecutor, @unchecked Sendable {
    private let pool: WorkPool
    let name: String
    private let lock = NSLock()
    // Guarded by `lock`.
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    /// Whether the lane is in the pool's ready queue or a worker runs it.
    private var scheduled = false
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
        let schedule = lock.withLock { () -> Bool in
            jobs.append(job)
            guard !scheduled else { return false }
            scheduled = true
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
            let job = lock.withLock { () -> (@Sendable () -> Void)? in
                guard head < jobs.count else { return nil }
                let job = jobs[head]
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                }
                return job
            }
            guard let job else { break }
            job()
        }
        owner.store(0, ordering: .releasing)
        let more = lock.withLock { () -> Bool in
            if head < jobs.count { return true }
            scheduled = false
            return false
        }
        if more { pool.schedule(self) }
    }
}

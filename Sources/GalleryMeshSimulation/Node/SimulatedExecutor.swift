import GalleryNode

/// A node's inbox on the simulation scheduler: `async` queues a job on the node's lane at the
/// current simulated time; `sync` runs in place (there is one thread, and nothing else runs while
/// the caller does), so a command made by the simulator never waits for its durability.
final class SimulatedExecutor: NodeExecutor, Sendable {
    /// Where jobs are queued.
    private let scheduler: SimulationScheduler
    /// The lane of this node incarnation's inbox.
    let lane: Int

    /// An inbox on `lane`.
    init(scheduler: SimulationScheduler, lane: Int) {
        self.scheduler = scheduler
        self.lane = lane
    }

    var isCurrent: Bool { true }

    func async(_ job: @escaping @Sendable () -> Void) {
        scheduler.schedule(at: scheduler.now, lane: lane, job)
    }

    func runAndWait<T>(_ body: () throws -> T) throws -> T {
        try body()
    }
}

/// A node's clock on the simulation scheduler: simulated time, timers on the node's timer lane.
struct SimulatedClock: NodeClock, Sendable {
    /// Where the time and the timers come from.
    let scheduler: SimulationScheduler
    /// The lane of this node incarnation's timers.
    let lane: Int

    var now: UInt64 { scheduler.now }

    func schedule(after nanoseconds: UInt64, _ task: @escaping @Sendable () -> Void) {
        scheduler.schedule(after: nanoseconds, lane: lane, task)
    }
}

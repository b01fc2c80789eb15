import GalleryNode
import Synchronization

/// A node's workers on the simulation scheduler: every lane and job of the pool runs on one lane
/// of the scheduler (one thread runs the whole simulation, so lanes are serial anyway), killed
/// with the node's other lanes at a crash. The scheduler lane is made at the first job, so that a
/// node that never uses its workers (no blob store) leaves every other lane's number, and so the
/// trace, as it was.
final class SimulatedWorkPool: NodeWorkPool, Sendable {
    private let scheduler: SimulationScheduler
    /// The scheduler lane of this node incarnation's workers, once a job came.
    var lane: Int? { madeLane.withLock { $0 } }
    private let madeLane = Mutex<Int?>(nil)

    /// Workers on `scheduler`.
    init(scheduler: SimulationScheduler) {
        self.scheduler = scheduler
    }

    var width: Int { 1 }

    func makeLane(_ name: String) -> any NodeExecutor {
        Lane(pool: self)
    }

    func async(_ job: @escaping @Sendable () -> Void) {
        let lane = madeLane.withLock { lane in
            if lane == nil { lane = scheduler.makeLane() }
            return lane!
        }
        scheduler.schedule(at: scheduler.now, lane: lane, job)
    }

    /// A serial lane of the pool: its jobs go to the pool's one scheduler lane, in order.
    private final class Lane: NodeExecutor, Sendable {
        let pool: SimulatedWorkPool

        init(pool: SimulatedWorkPool) {
            self.pool = pool
        }

        var isCurrent: Bool { true }

        func async(_ job: @escaping @Sendable () -> Void) {
            pool.async(job)
        }

        func runAndWait<T>(_ body: () throws -> T) throws -> T {
            try body()
        }
    }
}

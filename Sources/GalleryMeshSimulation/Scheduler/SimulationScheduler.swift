/// The simulation's one scheduler: a priority queue of (time, lane, sequence) events run one at a
/// time on the caller's thread. No threads, no wall clock: the same inputs give the same run.
///
/// Lanes are actors (a node's inbox, its timers, a channel end); a lane can be killed (a node
/// crashed), after which its queued and future events are dropped.
///
/// Every event run is folded into `digest` (FNV-1a of time and lane), so two runs can be compared.
// unchecked Sendable: one thread runs the whole simulation; the node core's closures it holds are `@Sendable`
package final class SimulationScheduler: @unchecked Sendable {
    /// The simulated time (nanoseconds since the start).
    package private(set) var now: UInt64 = 0
    private var heap = EventHeap()
    private var sequences: [UInt64] = []
    private var alive: [Bool] = []
    /// Events run so far.
    package private(set) var eventsRun = 0
    /// A digest of every event run (time and lane, in order) and of what callers `record`.
    package private(set) var digest: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    /// A new lane.
    package func makeLane() -> Int {
        sequences.append(0)
        alive.append(true)
        return sequences.count - 1
    }

    /// Drops a lane's events from now on.
    package func kill(_ lane: Int) {
        alive[lane] = false
    }

    /// Whether a lane still runs its events.
    package func isAlive(_ lane: Int) -> Bool {
        alive[lane]
    }

    /// Runs `task` on `lane` at `time` (not before now).
    package func schedule(at time: UInt64, lane: Int, _ task: @escaping () -> Void) {
        guard alive[lane] else { return }
        sequences[lane] += 1
        heap.push(SimulationEvent(time: max(time, now), lane: lane, sequence: sequences[lane], task: task))
    }

    /// Runs `task` on `lane` after `delay` nanoseconds.
    package func schedule(after delay: UInt64, lane: Int, _ task: @escaping () -> Void) {
        schedule(at: now &+ delay, lane: lane, task)
    }

    /// Folds a value into the digest.
    package func record(_ value: UInt64) {
        var value = value
        for _ in 0..<8 {
            digest = (digest ^ (value & 0xff)) &* 0x0100_0000_01b3
            value >>= 8
        }
    }

    /// Runs events up to and including `time`, then sets the clock to `time`.
    package func run(until time: UInt64) {
        while let next = heap.first?.time, next <= time {
            let event = heap.pop()!
            guard alive[event.lane] else { continue }
            now = event.time
            eventsRun += 1
            record(event.time)
            record(UInt64(event.lane))
            event.task()
        }
        now = max(now, time)
    }

    /// Events waiting.
    package var pending: Int { heap.count }
}

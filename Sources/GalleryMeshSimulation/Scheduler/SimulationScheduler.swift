import GalleryIO
/// The simulation's one scheduler: a priority queue of (time, lane, sequence) events run one at a
/// time on the caller's thread. No threads, no wall clock: the same inputs give the same run.
///
/// Lanes are actors (a node's inbox, its timers, a channel end); a lane can be killed (a node
/// crashed), after which its queued and future events are dropped.
///
/// Every event run is folded into `digest` (FNV-1a of time and lane), so two runs can be compared.
///
/// One thread runs the whole simulation, and owns its state (`owner`): the thread that made the
/// scheduler, then the one that calls `run` (an async caller may resume on another thread). The
/// scheduler's, the network's, the links', the channel ends' and the nodes' state is `LoopBound`
/// to it, checked on every access in debug builds.
package final class SimulationScheduler: Sendable {
    /// The thread running the simulation.
    package let owner = OwningThread()
    /// The simulated time (nanoseconds since the start).
    package internal(set) var now: UInt64 { _read { yield boundNow.value } _modify { yield &boundNow.value } }
    private let boundNow: LoopBound<UInt64>
    private var heap: EventHeap { _read { yield boundHeap.value } _modify { yield &boundHeap.value } }
    private let boundHeap: LoopBound<EventHeap>
    private var sequences: [UInt64] { _read { yield boundSequences.value } _modify { yield &boundSequences.value } }
    private let boundSequences: LoopBound<[UInt64]>
    private var alive: [Bool] { _read { yield boundAlive.value } _modify { yield &boundAlive.value } }
    private let boundAlive: LoopBound<[Bool]>
    /// Events run so far.
    package internal(set) var eventsRun: Int { _read { yield boundEventsRun.value } _modify { yield &boundEventsRun.value } }
    private let boundEventsRun: LoopBound<Int>
    /// A digest of every event run (time and lane, in order) and of what callers `record`.
    package internal(set) var digest: UInt64 { _read { yield boundDigest.value } _modify { yield &boundDigest.value } }
    private let boundDigest: LoopBound<UInt64>

    package init() {
        boundNow = LoopBound(0, owner: owner)
        boundHeap = LoopBound(EventHeap(), owner: owner)
        boundSequences = LoopBound([], owner: owner)
        boundAlive = LoopBound([], owner: owner)
        boundEventsRun = LoopBound(0, owner: owner)
        boundDigest = LoopBound(0xcbf2_9ce4_8422_2325, owner: owner)
        owner.claim()
    }

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
        owner.claim()
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

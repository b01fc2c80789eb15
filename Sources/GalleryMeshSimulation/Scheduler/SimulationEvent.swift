import GalleryNode

/// One scheduled task of a `SimulationScheduler`: ordered by time, then lane, then the order
/// queued on that lane, so that the order never depends on which of several independent actors
/// happened to queue first (e.g. a dictionary's iteration order inside the node core).
struct SimulationEvent: HeapOrdered {
    /// When it runs (simulated nanoseconds).
    let time: UInt64
    /// The actor it runs for: a node's inbox, its timers, its durability step, a channel end.
    let lane: Int
    /// Its place among the lane's events.
    let sequence: UInt64
    /// What runs.
    let task: () -> Void

    /// Whether `self` runs before `other`.
    func precedes(_ other: SimulationEvent) -> Bool {
        if time != other.time { return time < other.time }
        if lane != other.lane { return lane < other.lane }
        return sequence < other.sequence
    }
}

/// The events waiting, the one that runs first on top.
typealias EventHeap = MinHeap<SimulationEvent>

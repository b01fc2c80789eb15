/// One scheduled task of a `SimulationScheduler`: ordered by time, then lane, then the order
/// queued on that lane, so that the order never depends on which of several independent actors
/// happened to queue first (e.g. a dictionary's iteration order inside the node core).
struct SimulationEvent {
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

/// A binary min-heap of events.
struct EventHeap {
    private var items: [SimulationEvent] = []

    /// Whether no event waits.
    var isEmpty: Bool { items.isEmpty }
    /// Events waiting.
    var count: Int { items.count }
    /// The next event's time.
    var nextTime: UInt64? { items.first?.time }

    /// Adds an event.
    mutating func push(_ event: SimulationEvent) {
        items.append(event)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].precedes(items[parent]) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes the event that runs first.
    mutating func pop() -> SimulationEvent? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let first = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count && items[left].precedes(items[smallest]) { smallest = left }
            if right < items.count && items[right].precedes(items[smallest]) { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}

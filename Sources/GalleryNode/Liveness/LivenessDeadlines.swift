/// When each connection must next be looked at by the liveness pass: its heartbeat due, its
/// silence or handshake deadline running out, its close overdue. The pass looks only at the
/// connections due, so an idle node costs O(what is due), not O(connections) ten times a second.
///
/// A min-heap of (deadline, connection ID), ties broken by ID so that a simulation replays
/// the same order. A connection's deadlines only move later on their own (bytes sent or received
/// push them back), so an entry that fires early is looked at and scheduled again, never missed;
/// only authentication and a close bring a deadline closer (`schedule`). An entry whose deadline is
/// not its connection's current one is stale and skipped when it comes up. Owned by the node's loop.
struct LivenessDeadlines {
    /// One scheduled look at a connection.
    private struct Entry: HeapOrdered {
        var deadline: UInt64
        var id: Int

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    private var heap = MinHeap<Entry>()
    /// Each tracked connection's current deadline.
    private var current: [Int: UInt64] = [:]

    /// The connections tracked.
    var count: Int { current.count }

    /// The earliest deadline held (perhaps a stale entry's: never later than the true one).
    var nextDeadline: UInt64? { heap.first?.deadline }

    /// Makes connection `id` due at `deadline`, unless it is due earlier already.
    mutating func schedule(_ id: Int, at deadline: UInt64) {
        if let scheduled = current[id], scheduled <= deadline { return }
        current[id] = deadline
        heap.push(Entry(deadline: deadline, id: id))
    }

    /// Stops tracking connection `id` (it closed); its entry is dropped when it comes up.
    mutating func remove(_ id: Int) {
        current[id] = nil
    }

    /// Takes the next connection due at `now`, nil when none is: it stays untracked until
    /// scheduled again.
    mutating func popDue(now: UInt64) -> Int? {
        while let first = heap.first, first.deadline <= now, let entry = heap.pop() {
            guard current[entry.id] == entry.deadline else { continue }  // Stale.
            current[entry.id] = nil
            return entry.id
        }
        return nil
    }
}

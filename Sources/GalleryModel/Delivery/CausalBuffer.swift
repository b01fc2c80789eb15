/// Ops that arrived before their dependencies, held until those are applied.
///
/// The buffer is bounded: when it is full, further early ops are refused (and must be sent again
/// later), so a peer cannot make a replica grow without limit. Every held op is keyed by the
/// dependency it waits for, which `missing` reports so that the sync layer can ask for it.
struct CausalBuffer {
    /// The most ops the buffer holds.
    let limit: Int
    private var waiting: [OpID: [Op]] = [:]
    private var held: [OpID: Op] = [:]

    init(limit: Int) {
        self.limit = limit
    }

    /// Number of ops held.
    var count: Int { held.count }

    /// Whether an op with this ID is held.
    func isHolding(_ id: OpID) -> Bool {
        held[id] != nil
    }

    /// The op held under this ID, if any.
    func heldOp(_ id: OpID) -> Op? {
        held[id]
    }

    /// Every op held, in no particular order.
    var heldOps: [Op] {
        Array(held.values)
    }

    /// The dependencies that held ops wait for, sorted.
    var missing: [OpID] {
        waiting.keys.sorted()
    }

    /// Holds an op until `dependency` is applied; false when the buffer is full.
    mutating func hold(_ op: Op, until dependency: OpID) -> Bool {
        guard held.count < limit else { return false }
        held[op.id] = op
        waiting[dependency, default: []].append(op)
        return true
    }

    /// Releases the ops waiting for any counter in `counters` of `replica`.
    mutating func release(replica: ReplicaID, counters: ClosedRange<UInt64>) -> [Op] {
        guard !waiting.isEmpty else { return [] }
        var released: [Op] = []
        for counter in counters {
            if let ops = waiting.removeValue(forKey: OpID(counter: counter, replica: replica)) {
                for op in ops { held[op.id] = nil }
                released += ops
            }
        }
        return released
    }
}

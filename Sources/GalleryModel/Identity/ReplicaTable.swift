/// What one replica knows per replica of the space: its index, the last counter applied from it,
/// and where the slots it created live in the slot arena.
///
/// Slots created by one replica arrive in counter order, so each replica's counter -> slot map is
/// an append-only list of runs (consecutive counters on consecutive slots), searched by bisection.
///
/// - Complexity: `slot(for:)` is O(log r) where r is the number of runs of that replica.
struct ReplicaTable {
    /// Replica IDs by index.
    private(set) var ids: [ReplicaID] = []
    private var indexByID: [ReplicaID: Int] = [:]
    /// Highest counter applied from each replica (0: none).
    private(set) var applied: [UInt64] = []
    private var runs: [SlotRuns] = []

    /// The index of a replica, if it is known here.
    ///
    /// - Complexity: O(1) expected; the first few replicas (this one first) are found without hashing.
    @inline(__always)
    func index(of replica: ReplicaID) -> Int? {
        for index in 0..<min(ids.count, 4) where ids[index] == replica { return index }
        return ids.count > 4 ? indexByID[replica] : nil
    }

    /// The index of a replica, registering it when it is new; nil when the table is full.
    mutating func register(_ replica: ReplicaID) -> Int? {
        if let index = index(of: replica) { return index }
        guard ids.count < PackedID.maxReplicas else { return nil }
        ids.append(replica)
        applied.append(0)
        runs.append(SlotRuns())
        indexByID[replica] = ids.count - 1
        return ids.count - 1
    }

    /// Forgets the replica registered last, which must have nothing applied (an op of a new
    /// replica was refused).
    mutating func unregisterLast() {
        guard let last = ids.indices.last, applied[last] == 0 else { return }
        indexByID[ids[last]] = nil
        ids.removeLast()
        applied.removeLast()
        runs.removeLast()
    }

    /// Whether the op (or item, or slot) with this ID has been applied here.
    func contains(_ id: OpID) -> Bool {
        guard let index = index(of: id.replica) else { return false }
        return id.counter <= applied[index]
    }

    /// The highest counter applied from a replica, 0 when none.
    func appliedCounter(of replica: ReplicaID) -> UInt64 {
        index(of: replica).map { applied[$0] } ?? 0
    }

    /// Records that ops of a replica are applied up to `counter`.
    mutating func markApplied(_ index: Int, upTo counter: UInt64) {
        applied[index] = counter
    }

    /// Packs an ID whose replica is known here.
    func pack(_ id: OpID) -> PackedID? {
        index(of: id.replica).map { PackedID(replicaIndex: $0, counter: id.counter) }
    }

    /// Unpacks a packed ID.
    func unpack(_ key: PackedID) -> OpID {
        OpID(counter: key.counter, replica: ids[key.replicaIndex])
    }

    /// The replica ID behind a packed ID.
    func replica(of key: PackedID) -> ReplicaID {
        ids[key.replicaIndex]
    }

    /// Records the slot created with `key`; keys of one replica must arrive in increasing order.
    mutating func recordSlot(_ slot: Int32, for key: PackedID) {
        runs[key.replicaIndex].append(counter: key.counter, slot: slot)
    }

    /// The slot created by the op with this packed ID, if any.
    func slot(for key: PackedID) -> Int32? {
        runs[key.replicaIndex].slot(for: key.counter)
    }

    /// The slot created by the op with this ID, if any.
    func slot(for id: OpID) -> Int32? {
        guard let index = index(of: id.replica) else { return nil }
        return runs[index].slot(for: id.counter)
    }
}

/// The counter -> slot map of one replica, as runs of consecutive counters on consecutive slots.
struct SlotRuns {
    private var starts: [UInt64] = []
    private var firstSlots: [Int32] = []
    private var lengths: [Int32] = []

    mutating func append(counter: UInt64, slot: Int32) {
        if let last = starts.indices.last,
           starts[last] + UInt64(lengths[last]) == counter,
           firstSlots[last] + lengths[last] == slot {
            lengths[last] += 1
        } else {
            starts.append(counter)
            firstSlots.append(slot)
            lengths.append(1)
        }
    }

    /// The slot created with this counter, if any.
    ///
    /// - Complexity: O(log r) for r runs, by a bisection without a data-dependent branch (runs
    ///   are many when other ops cut them short: each probe would be a coin toss for the branch
    ///   predictor); O(1) for the last run.
    func slot(for counter: UInt64) -> Int32? {
        starts.withUnsafeBufferPointer { starts in
            guard let first = starts.first, first <= counter else { return nil }
            // The last run whose start is at most `counter`.
            var run = starts.count - 1
            if starts[run] > counter {
                run = 0
                var width = starts.count
                while width > 1 {
                    let half = width / 2
                    run = starts[run + half] <= counter ? run + half : run
                    width -= half
                }
            }
            let offset = counter - starts[run]
            return offset < UInt64(lengths[run]) ? firstSlots[run] + Int32(offset) : nil
        }
    }
}

// MARK: State encoding (snapshots)

extension ReplicaTable {
    /// Writes the table for `init(decoding:)`:
    /// `r:varint id:u64*r applied:u64*r (runs)*r`, runs as `SlotRuns.encodeState(into:)` writes them.
    ///
    /// - Complexity: O(r + runs).
    func encodeState(into writer: inout ByteWriter) {
        writer.varint(UInt64(ids.count))
        writer.integers(ids.map(\.rawValue))
        writer.integers(applied)
        for list in runs { list.encodeState(into: &writer) }
    }

    /// Restores what `encodeState(into:)` wrote; the index by ID is rebuilt.
    ///
    /// - Complexity: O(r + runs).
    init(decoding reader: inout ByteReader) throws(DecodingError) {
        let count = try reader.count(limit: min(PackedID.maxReplicas, reader.remaining / 16))
        ids = try reader.integers(count, as: UInt64.self).map(ReplicaID.init(rawValue:))
        applied = try reader.integers(count)
        runs = []
        runs.reserveCapacity(count)
        for _ in 0..<count { runs.append(try SlotRuns(decoding: &reader)) }
        for (index, id) in ids.enumerated() {
            guard indexByID.updateValue(index, forKey: id) == nil else { throw .invalidValue("snapshot replica twice") }
        }
    }

    /// Whether every slot the runs name is below `slotCount`.
    func slotsFit(below slotCount: Int) -> Bool {
        runs.allSatisfy { $0.slotsFit(below: slotCount) }
    }
}

extension SlotRuns {
    /// Writes the runs: `n:varint start:u64*n firstSlot:i32*n length:i32*n`.
    func encodeState(into writer: inout ByteWriter) {
        writer.varint(UInt64(starts.count))
        writer.integers(starts)
        writer.integers(firstSlots)
        writer.integers(lengths)
    }

    /// Restores what `encodeState(into:)` wrote.
    init(decoding reader: inout ByteReader) throws(DecodingError) {
        let count = try reader.count(limit: reader.remaining / 16)
        starts = try reader.integers(count)
        firstSlots = try reader.integers(count)
        lengths = try reader.integers(count)
    }

    /// Whether every slot of every run is below `slotCount`.
    func slotsFit(below slotCount: Int) -> Bool {
        for index in firstSlots.indices {
            let first = Int(firstSlots[index])
            let length = Int(lengths[index])
            guard first >= 0, length >= 0, first + length <= slotCount else { return false }
        }
        return true
    }
}

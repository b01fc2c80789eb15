/// Ops that arrived before their dependencies, held until those are applied.
///
/// The buffer is bounded twice: in all (`BufferLimits.ops`, `.bytes`) and per source, the peer
/// connection an op came from (`opsPerSource`, `bytesPerSource`), so that one peer that sends ops
/// whose dependencies never come can fill only its own share. A source's ops go when it leaves
/// (`drop(source:)`): nothing a peer sent outlives its connection unless another source sent it
/// too. Every held op is keyed by the dependency it waits for, which `missing` reports so that the
/// sync layer can ask for it.
///
/// An op held for several sources (each sent it) counts once against the whole buffer and once
/// against each of those sources, and stays while any of them remains: an honest peer's copy is
/// never lost because a flooding peer sent the same op first.
struct CausalBuffer {
    /// The source of ops that came from no peer (a replay of the node's own files, tests): they
    /// count against the whole buffer only, and are never dropped or evicted.
    static let unattributed = Int.min

    /// Why `hold` did not hold an op.
    enum Refusal: Error, Hashable {
        /// The op's source already holds its quota of ops or bytes.
        case sourceFull
        /// The buffer is full, and the op's source holds at least as many ops as any other.
        case full
    }

    private struct Entry {
        var op: Op
        var dependency: OpID
        var bytes: Int
        /// Every source that sent the op, each charged for it; usually one.
        var sources: [Int]
    }

    private struct Usage {
        var ids: Set<OpID> = []
        var bytes = 0
    }

    /// The limits the buffer keeps from now on (ops held beyond new ones stay).
    var limits: BufferLimits
    private var held: [OpID: Entry] = [:]
    /// The IDs of the held ops waiting for each dependency.
    private var waiting: [OpID: [OpID]] = [:]
    private var usage: [Int: Usage] = [:]
    /// Bytes held in all (each op counted once, by its encoded size bound).
    private(set) var byteCount = 0

    init(limits: BufferLimits) {
        self.limits = limits
    }

    /// Number of ops held.
    var count: Int { held.count }

    /// Number of ops held for `source` (held for other sources too included).
    func count(from source: Int) -> Int {
        usage[source]?.ids.count ?? 0
    }

    /// Whether an op with this ID is held.
    func isHolding(_ id: OpID) -> Bool {
        held[id] != nil
    }

    /// The op held under this ID, if any.
    func heldOp(_ id: OpID) -> Op? {
        held[id]?.op
    }

    /// Every op held, in no particular order.
    var heldOps: [Op] {
        held.values.map(\.op)
    }

    /// The dependencies that held ops wait for, sorted.
    var missing: [OpID] {
        waiting.keys.sorted()
    }

    /// Holds an op from `source` until `dependency` is applied.
    ///
    /// When the whole buffer is full, the ops of the source that holds the most go first (when it
    /// holds more than `source`): a source within its quota is never refused because of another.
    /// Evicted ops are only forgotten; the sync layer's version exchange brings them again.
    mutating func hold(_ op: Op, until dependency: OpID, source: Int) throws(Refusal) {
        let bytes = OpCodec.maxEncodedSize(of: op)
        let own = usage[source] ?? Usage()
        if source != Self.unattributed,
           own.ids.count >= limits.opsPerSource || own.bytes + bytes > limits.bytesPerSource {
            throw .sourceFull
        }
        while held.count >= limits.ops || byteCount + bytes > limits.bytes {
            let victim = usage.filter { $0.key != source && $0.key != Self.unattributed }
                .max { ($0.value.ids.count, $0.value.bytes) < ($1.value.ids.count, $1.value.bytes) }
            guard let victim, victim.value.ids.count > own.ids.count else { throw .full }
            drop(source: victim.key)
        }
        insert(Entry(op: op, dependency: dependency, bytes: bytes, sources: [source]))
    }

    /// Charges an op already held to one more source that sent it; false when that source is
    /// over its quota (the op stays held for the others all the same).
    @discardableResult
    mutating func claim(_ id: OpID, for source: Int) -> Bool {
        guard var entry = held[id], !entry.sources.contains(source) else { return true }
        let own = usage[source] ?? Usage()
        if source != Self.unattributed,
           own.ids.count >= limits.opsPerSource || own.bytes + entry.bytes > limits.bytesPerSource {
            return false
        }
        entry.sources.append(source)
        held[id] = entry
        usage[source, default: Usage()].ids.insert(id)
        usage[source, default: Usage()].bytes += entry.bytes
        return true
    }

    /// Holds again, for the same sources and whatever the limits, an op just released that waits
    /// for another dependency: its release made the room it takes.
    mutating func rehold(_ released: Released, until dependency: OpID) {
        insert(Entry(op: released.op, dependency: dependency, bytes: OpCodec.maxEncodedSize(of: released.op),
                     sources: released.sources))
    }

    /// A held op handed back by `release`, with the sources that sent it.
    struct Released {
        var op: Op
        var sources: [Int]
    }

    /// Releases the ops waiting for any counter in `counters` of `replica`.
    mutating func release(replica: ReplicaID, counters: ClosedRange<UInt64>) -> [Released] {
        guard !waiting.isEmpty else { return [] }
        var released: [Released] = []
        for counter in counters {
            guard let ids = waiting.removeValue(forKey: OpID(counter: counter, replica: replica)) else { continue }
            for id in ids {
                guard let entry = remove(id) else { continue }
                released.append(Released(op: entry.op, sources: entry.sources))
            }
        }
        return released
    }

    /// Forgets `source`: its charge on every op it sent, and the ops no other source sent.
    /// Returns how many ops left the buffer.
    @discardableResult
    mutating func drop(source: Int) -> Int {
        guard let gone = usage.removeValue(forKey: source) else { return 0 }
        var orphans: [OpID: Set<OpID>] = [:]
        for id in gone.ids {
            guard var entry = held[id] else { continue }
            entry.sources.removeAll { $0 == source }
            if entry.sources.isEmpty {
                held[id] = nil
                byteCount -= entry.bytes
                orphans[entry.dependency, default: []].insert(id)
            } else {
                held[id] = entry
            }
        }
        // One pass per dependency, not per op: a flood often waits on a single missing op.
        for (dependency, ids) in orphans {
            waiting[dependency]?.removeAll { ids.contains($0) }
            if waiting[dependency]?.isEmpty == true { waiting[dependency] = nil }
        }
        return orphans.values.reduce(0) { $0 + $1.count }
    }

    private mutating func insert(_ entry: Entry) {
        let id = entry.op.id
        held[id] = entry
        byteCount += entry.bytes
        waiting[entry.dependency, default: []].append(id)
        for source in entry.sources {
            usage[source, default: Usage()].ids.insert(id)
            usage[source, default: Usage()].bytes += entry.bytes
        }
    }

    /// Removes a held op and its charges (not its place in `waiting`, which the caller takes).
    private mutating func remove(_ id: OpID) -> Entry? {
        guard let entry = held.removeValue(forKey: id) else { return nil }
        byteCount -= entry.bytes
        for source in entry.sources {
            usage[source]?.ids.remove(id)
            usage[source]?.bytes -= entry.bytes
            if usage[source]?.ids.isEmpty == true { usage[source] = nil }
        }
        return entry
    }
}

/// How many early ops a replica holds, in all and per source (protocol.md, section 6).
package struct BufferLimits: Hashable, Sendable {
    /// The most ops held in all.
    package var ops: Int
    /// The most bytes held in all (ops counted by the bound of their encoded size).
    package var bytes: Int
    /// The most ops held for one source.
    package var opsPerSource: Int
    /// The most bytes held for one source.
    package var bytesPerSource: Int

    /// Creates limits.
    package init(ops: Int = 100_000, bytes: Int = 128 << 20, opsPerSource: Int = 10_000, bytesPerSource: Int = 16 << 20) {
        self.ops = ops
        self.bytes = bytes
        self.opsPerSource = opsPerSource
        self.bytesPerSource = bytesPerSource
    }

    /// What a node keeps: 100,000 ops and 128 MiB in all, 10,000 ops and 16 MiB per peer.
    package static let standard = BufferLimits()
}

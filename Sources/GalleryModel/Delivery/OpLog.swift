/// Every op a replica has applied, in the order it applied them (a causal order), kept in the
/// compact binary encoding of `OpCodec` and indexed per replica, so that the ops another replica
/// lacks are found without a scan of the whole log.
///
/// - Complexity: `append` is O(1) amortized plus the op's encoded size; `ops(missingFrom:)` is
///   O(r log n + k log k) for k ops returned from r replicas.
struct OpLog {
    /// The encoded ops, back to back.
    private var writer = ByteWriter()
    /// Byte offsets of each replica's ops (by replica index), in increasing counter order.
    private var offsets: [[Int]] = []
    private(set) var count = 0

    /// Size of the encoded log in bytes.
    var byteCount: Int { writer.bytes.count }

    mutating func append(_ op: Op, replicaIndex: Int) {
        while offsets.count <= replicaIndex { offsets.append([]) }
        offsets[replicaIndex].append(writer.bytes.count)
        OpCodec.encode(op, into: &writer)
        count += 1
    }

    /// All ops in log order.
    var ops: [Op] {
        decode(offsets.joined().sorted())
    }

    /// The last `count` ops appended, in log order.
    ///
    /// - Complexity: O(r * count) for r replicas.
    func last(_ count: Int) -> [Op] {
        guard count > 0 else { return [] }
        let tails = offsets.flatMap { $0.suffix(count) }.sorted()
        return decode(Array(tails.suffix(count)))
    }

    /// The ops not included in `version`, in log order, so that dependencies come first.
    func ops(missingFrom version: VersionVector, replicas: ReplicaTable) -> [Op] {
        var selected: [Int] = []
        for (index, list) in offsets.enumerated() where !list.isEmpty {
            let known = version[replicas.ids[index]]
            var low = 0
            var high = list.count
            while low < high {
                let mid = (low + high) / 2
                if counter(at: list[mid]) <= known { low = mid + 1 } else { high = mid }
            }
            selected += list[low...]
        }
        selected.sort()
        return decode(selected)
    }

    private func decode(_ offsets: [Int]) -> [Op] {
        offsets.map { offset in
            var reader = ByteReader(writer.bytes, offset: offset)
            // The log holds only ops this replica encoded itself.
            guard let op = try? OpCodec.decode(from: &reader) else { preconditionFailure("corrupt in-memory op log") }
            return op
        }
    }

    /// The counter of the op encoded at `offset` (it follows the one-byte kind).
    private func counter(at offset: Int) -> UInt64 {
        var reader = ByteReader(writer.bytes, offset: offset + 1)
        return (try? reader.varint()) ?? 0
    }
}

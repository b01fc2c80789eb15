/// Every op a replica has applied, in the order it applied them (a causal order), kept in the
/// compact binary encoding of `OpCodec` and indexed per replica, so that the ops another replica
/// lacks are found without a scan of the whole log, and can be sent without re-encoding.
///
/// The encoded ops live in chunks of about 1 MiB, so that the log grows without ever copying
/// itself into a buffer twice its size.
///
/// - Complexity: `append` is O(1) amortized plus the op's encoded size; `ops(missingFrom:)` is
///   O(r log n + k log k) for k ops returned from r replicas.
struct OpLog {
    private static let chunkSize = 1 << 20
    /// The encoded ops, back to back, in chunks; an op never spans two chunks.
    private(set) var chunks: [ByteWriter] = []
    /// Where each op starts, in log order: chunk index << 32 | offset in the chunk.
    private var starts: [Int] = []
    /// Log positions (indices into `starts`) of each replica's ops, in increasing counter order.
    private var positions: [[Int32]] = []

    /// Number of ops.
    var count: Int { starts.count }

    /// Size of the encoded log in bytes.
    private(set) var byteCount = 0

    mutating func append(_ op: Op, replicaIndex: Int) {
        while positions.count <= replicaIndex { positions.append([]) }
        positions[replicaIndex].append(Int32(starts.count))
        let size = OpCodec.maxEncodedSize(of: op)
        if chunks.isEmpty || (chunks[chunks.count - 1].bytes.count + size > Self.chunkSize
            && !chunks[chunks.count - 1].bytes.isEmpty) {
            chunks.append(ByteWriter(capacity: max(Self.chunkSize, size)))
        }
        let chunk = chunks.count - 1
        let offset = chunks[chunk].bytes.count
        starts.append(chunk << 32 | offset)
        OpCodec.encode(op, into: &chunks[chunk], maxSize: size)
        byteCount += chunks[chunk].bytes.count - offset
    }

    /// All ops in log order.
    var ops: [Op] {
        decode(Array(0..<Int32(count)))
    }

    /// The last `count` ops appended, in log order.
    ///
    /// - Complexity: O(count).
    func last(_ count: Int) -> [Op] {
        decode(Array(Int32(self.count - count)..<Int32(self.count)))
    }

    /// The ops not included in `version`, in log order, so that dependencies come first.
    func ops(missingFrom version: VersionVector, replicas: ReplicaTable) -> [Op] {
        decode(positions(missingFrom: version, replicas: replicas))
    }

    /// The ops not included in `version` as `OpCodec` batches of at most `maximumBytes` each
    /// (unless one op is larger), copied from the log without decoding.
    func encodedBatches(missingFrom version: VersionVector, replicas: ReplicaTable, maximumBytes: Int) -> [[UInt8]] {
        encodedBatches(of: positions(missingFrom: version, replicas: replicas), maximumBytes: maximumBytes)
    }

    /// The ops at log positions `range` as `OpCodec` batches of at most `maximumBytes` each (unless
    /// one op is larger), copied from the log without decoding.
    ///
    /// - Complexity: O(k + b) for k ops of b bytes.
    func encodedBatches(positions range: Range<Int>, maximumBytes: Int) -> [[UInt8]] {
        encodedBatches(of: range.lazy.map { Int32($0) }, maximumBytes: maximumBytes)
    }

    /// The ops at the given log positions, in that order, as `OpCodec` batches.
    func encodedBatches(of selected: some Sequence<Int32>, maximumBytes: Int) -> [[UInt8]] {
        var batches: [[UInt8]] = []
        var body: [UInt8] = []
        var count = 0
        func flush() {
            guard count > 0 else { return }
            var batch = ByteWriter(capacity: body.count + 10)
            batch.varint(UInt64(count))
            batch.append(body)
            batches.append(batch.bytes)
            body.removeAll(keepingCapacity: true)
            count = 0
        }
        for position in selected {
            let (chunk, start) = location(of: position)
            let next = Int(position) + 1 < starts.count ? location(of: Int32(position + 1)) : (chunk + 1, 0)
            let end = next.0 == chunk ? next.1 : chunks[chunk].bytes.count
            if count > 0 && body.count + (end - start) + 10 > maximumBytes { flush() }
            body.append(contentsOf: chunks[chunk].bytes[start..<end])
            count += 1
        }
        flush()
        return batches
    }

    /// The log positions of the ops not included in `version`, in log order.
    func positions(missingFrom version: VersionVector, replicas: ReplicaTable) -> [Int32] {
        var selected: [Int32] = []
        for (index, list) in positions.enumerated() where !list.isEmpty {
            selected += list[firstUnknown(in: list, known: version[replicas.ids[index]])...]
        }
        selected.sort()
        return selected
    }

    /// The encoded size in bytes of the op at a log position.
    ///
    /// - Complexity: O(1).
    func encodedSize(at position: Int32) -> Int {
        let (chunk, start) = location(of: position)
        let next = Int(position) + 1 < starts.count ? location(of: position + 1) : (chunk + 1, 0)
        return (next.0 == chunk ? next.1 : chunks[chunk].bytes.count) - start
    }

    /// The chunk and offset where the op at a log position starts.
    func location(of position: Int32) -> (chunk: Int, offset: Int) {
        let start = starts[Int(position)]
        return (start >> 32, start & 0xFFFF_FFFF)
    }

    func decode(_ positions: [Int32]) -> [Op] {
        positions.map { position in
            let (chunk, offset) = location(of: position)
            var reader = ByteReader(chunks[chunk].bytes, offset: offset)
            // The log holds only ops this replica encoded itself, and `Replica.apply` refuses every
            // op the encoding cannot read back (`OpCodec.encodingProblem`), so this cannot fail.
            // Ops of an earlier version, outside today's `FieldLimits`, are read as they are.
            guard let op = try? OpCodec.decode(from: &reader, checkingBounds: false) else {
                preconditionFailure("corrupt in-memory op log")
            }
            return op
        }
    }

    /// The ops of replica `replicaIndex`, in the order applied (their counters ascending).
    ///
    /// - Complexity: O(k + b) for its k ops of b bytes.
    func ops(ofReplicaIndex replicaIndex: Int, first limit: Int = .max) -> [Op] {
        replicaIndex < positions.count ? decode(Array(positions[replicaIndex].prefix(limit))) : []
    }

    /// The encoded bytes of the op of replica `replicaIndex` whose ID has this counter, or nil when
    /// no op of that replica starts at that counter.
    ///
    /// - Complexity: O(log n + b) for an op of b bytes.
    func encodedOp(replicaIndex: Int, counter wanted: UInt64) -> ArraySlice<UInt8>? {
        guard replicaIndex < positions.count else { return nil }
        let list = positions[replicaIndex]
        var low = 0
        var high = list.count
        while low < high {
            let mid = (low + high) / 2
            if counter(at: list[mid]) < wanted { low = mid + 1 } else { high = mid }
        }
        guard low < list.count, counter(at: list[low]) == wanted else { return nil }
        let position = list[low]
        let (chunk, start) = location(of: position)
        let next = Int(position) + 1 < starts.count ? location(of: position + 1) : (chunk + 1, 0)
        let end = next.0 == chunk ? next.1 : chunks[chunk].bytes.count
        return chunks[chunk].bytes[start..<end]
    }

    /// The counter of the op at a log position (it follows the one-byte kind).
    private func counter(at position: Int32) -> UInt64 {
        let (chunk, offset) = location(of: position)
        var reader = ByteReader(chunks[chunk].bytes, offset: offset + 1)
        return (try? reader.varint()) ?? 0
    }

}

// MARK: State encoding (snapshots)

extension OpLog {
    /// Writes the log as it is: `chunks:varint (length:varint bytes)*chunks n:varint start:i64*n
    /// r:varint (k:varint position:i32*k)*r byteCount:varint`.
    ///
    /// - Complexity: O(n + b) for n ops of b bytes.
    func encodeState(into writer: inout ByteWriter) {
        writer.varint(UInt64(chunks.count))
        for chunk in chunks {
            writer.varint(UInt64(chunk.bytes.count))
            writer.append(chunk.bytes)
        }
        writer.varint(UInt64(starts.count))
        writer.integers(starts.map { Int64($0) })
        writer.varint(UInt64(positions.count))
        for list in positions {
            writer.varint(UInt64(list.count))
            writer.integers(list)
        }
        writer.varint(UInt64(byteCount))
    }

    /// Restores what `encodeState(into:)` wrote. Every op start must lie inside its chunk and every
    /// position inside the log; the ops themselves (which the file's checksum protects) are not
    /// decoded.
    ///
    /// - Complexity: O(n + b) for n ops of b bytes.
    init(decoding reader: inout ByteReader) throws(DecodingError) {
        let chunkCount = try reader.count(limit: reader.remaining)
        for index in 0..<chunkCount {
            let length = try reader.count(limit: reader.remaining)
            // The last chunk keeps room to grow, as `append` would have left it.
            var chunk = ByteWriter(capacity: index == chunkCount - 1 ? max(Self.chunkSize, length) : length)
            chunk.append(try reader.bytes(length))
            chunks.append(chunk)
        }
        let count = try reader.count(limit: min(Int(Int32.max), reader.remaining / 8))
        starts = try reader.integers(count, as: Int64.self).map { Int($0) }
        for start in starts {
            let chunk = start >> 32
            guard start >= 0, chunk < chunks.count, start & 0xFFFF_FFFF < chunks[chunk].bytes.count else {
                throw .invalidValue("snapshot op log offset")
            }
        }
        let replicaCount = try reader.count(limit: min(PackedID.maxReplicas, reader.remaining))
        for _ in 0..<replicaCount {
            let length = try reader.count(limit: reader.remaining / 4)
            let list = try reader.integers(length, as: Int32.self)
            guard list.allSatisfy({ $0 >= 0 && Int($0) < count }) else { throw .invalidValue("snapshot op log position") }
            positions.append(list)
        }
        byteCount = try reader.count(limit: Int.max)
    }
}

// MARK: Streaming catch-up

extension OpLog {
    /// The ID of the op at a log position, read from its encoding (kind byte, counter varint,
    /// replica u64) without decoding the op.
    ///
    /// - Complexity: O(1).
    func opID(at position: Int32) -> OpID {
        let (chunk, offset) = location(of: position)
        var reader = ByteReader(chunks[chunk].bytes, offset: offset + 1)
        let counter = (try? reader.varint()) ?? 0
        let replica = (try? reader.fixed64()) ?? 0
        return OpID(counter: counter, replica: ReplicaID(replica))
    }

    /// The index in one replica's `positions` list of its first op with a counter above `known`
    /// (the list's count when there is none).
    ///
    /// - Complexity: O(log n).
    private func firstUnknown(in list: [Int32], known: UInt64) -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let mid = (low + high) / 2
            if counter(at: list[mid]) <= known { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The first log position of an op that `version` does not include, or `count` when it
    /// includes them all: where a catch-up to a replica at `version` starts scanning.
    ///
    /// - Complexity: O(r log n) for r replicas.
    func firstPosition(missingFrom version: VersionVector, replicas: ReplicaTable) -> Int {
        var first = count
        for (index, list) in positions.enumerated() where !list.isEmpty {
            let unknown = firstUnknown(in: list, known: version[replicas.ids[index]])
            if unknown < list.count { first = min(first, Int(list[unknown])) }
        }
        return first
    }
}

/// A catch-up in steps: the log positions a peer lacks, then their encoded ops a batch at a time,
/// so that a node answering a large catch-up can do other work between batches.
extension Replica {
    /// The log positions of the applied ops that a replica at `version` lacks, in log order, below
    /// `end` (the ops that may be sent).
    ///
    /// - Complexity: O(r log n + k log k) for k positions.
    package func logPositions(missingFrom version: VersionVector, below end: Int) -> [Int32] {
        let positions = log.positions(missingFrom: version, replicas: table)
        guard let last = positions.last, Int(last) >= end else { return positions }
        return positions.filter { Int($0) < end }
    }

    /// The first `OpCodec` batch of the ops at `positions` (log positions, in order): at most
    /// `maximumBytes`, unless its one op is larger. Returns the batch and how many positions it
    /// took.
    ///
    /// - Complexity: O(k + b) for the k ops of b bytes taken.
    package func encodedBatch(atLogPositions positions: ArraySlice<Int32>, maximumBytes: Int) -> (batch: [UInt8], taken: Int) {
        var taken = 0
        var bytes = 0
        for position in positions {
            let size = log.encodedSize(at: position)
            if taken > 0 && bytes + size + 10 > maximumBytes { break }
            bytes += size
            taken += 1
        }
        let batches = log.encodedBatches(of: positions.prefix(taken), maximumBytes: Int.max)
        return (batches.first ?? [0], taken)
    }

    /// Where a streaming catch-up to a replica at `version` starts: the first log position of an
    /// op it lacks (`opCount` when it lacks none).
    ///
    /// - Complexity: O(r log n) for r replicas.
    package func firstLogPosition(missingFrom version: VersionVector) -> Int {
        log.firstPosition(missingFrom: version, replicas: table)
    }

    /// The next `OpCodec` batch of a streaming catch-up: the ops a replica at `version` lacks
    /// among log positions `start..<end`, in log order, at most `maximumBytes` (unless its one op
    /// is larger), looking at no more than `maximumScanned` positions. Nothing is collected
    /// beyond the batch: the cursor is the returned `next` position.
    ///
    /// - Returns: The batch (nil when no op in the positions looked at is missing) and the
    ///   position to continue from.
    /// - Complexity: O(s + b) for s positions looked at and b bytes taken.
    package func encodedBatch(missingFrom version: VersionVector, from start: Int, below end: Int,
                              maximumBytes: Int, maximumScanned: Int) -> (batch: [UInt8]?, next: Int) {
        var selected: [Int32] = []
        var bytes = 0
        var position = start
        let limit = min(end, log.count, start + max(1, maximumScanned))
        while position < limit {
            let id = log.opID(at: Int32(position))
            if version[id.replica] < id.counter {
                let size = log.encodedSize(at: Int32(position))
                if !selected.isEmpty && bytes + size + 10 > maximumBytes { break }
                bytes += size
                selected.append(Int32(position))
            }
            position += 1
        }
        guard !selected.isEmpty else { return (nil, position) }
        return (log.encodedBatches(of: selected, maximumBytes: Int.max).first, position)
    }
}

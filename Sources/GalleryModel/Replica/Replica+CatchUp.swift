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
}

/// A catch-up in steps: a cursor over the log yields the encoded ops a peer lacks a batch at a
/// time, so that a node answering a large catch-up does other work between batches and holds
/// nothing of the log but the batch being sent.
extension Replica {
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
    /// beyond the batch: the cursor is the returned `next` position. Of the signatures the log
    /// holds, the batch carries per replica its last signed op's, its checkpoints' and its first
    /// op's (`OpLog.encodedBatchWithCoveringSignatures`), unless the authenticator finds that that
    /// signature does not cover the replica's ops in the log (a damaged or forged log): those
    /// ops then carry every signature the log holds, so that a receiver applies the valid prefix.
    ///
    /// - Parameter notCovered: Called with each replica whose ops in the batch carry every
    ///   signature because their last one does not cover them (the caller reports it).
    /// - Returns: The batch (nil when no op in the positions looked at is missing) and the
    ///   position to continue from.
    /// - Complexity: O(s + b) for s positions looked at and b bytes taken.
    package func encodedBatch(missingFrom version: VersionVector, from start: Int, below end: Int,
                              maximumBytes: Int, maximumScanned: Int,
                              notCovered: (ReplicaID) -> Void = { _ in }) -> (batch: [UInt8]?, next: Int) {
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
        guard authenticator != nil else { return (log.encodedBatchWithCoveringSignatures(of: selected), position) }
        let uncovered = replicasNotCovered(at: selected)
        uncovered.forEach(notCovered)
        return (log.encodedBatchWithCoveringSignatures(of: selected, keepingEverySignature: uncovered), position)
    }

    /// The replicas whose ops at log positions `selected` (a batch, in log order) the
    /// authenticator does not find covered by their last signature there
    /// (`OpAuthenticator.signatureCovers`). The ops of a replica it vouches for
    /// (`OpAuthenticator.vouches`) are not decoded or checked.
    ///
    /// - Complexity: O(k) for k ops, plus one decoding per op and one signature check per
    ///   replica not vouched for.
    private func replicasNotCovered(at selected: [Int32]) -> Set<ReplicaID> {
        guard let authenticator else { return [] }
        var runs: [ReplicaID: [Int32]] = [:]
        for position in selected { runs[log.opID(at: position).replica, default: []].append(position) }
        return Set(runs.compactMap { replica, positions in
            guard let last = positions.last, !authenticator.vouches(for: replica, through: log.opID(at: last).counter) else { return nil }
            return authenticator.signatureCovers(log.decode(positions), in: self) ? nil : replica
        })
    }
}

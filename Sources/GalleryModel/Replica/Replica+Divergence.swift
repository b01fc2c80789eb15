/// Two versions of one op ID, and what ops are missing: checks on what a replica holds.
extension Replica {
    /// Whether `op`, whose ID is already applied or held here, differs from the op held under that
    /// ID (compared by their canonical encodings), or names a counter at which no op of its replica
    /// starts although later ones of that replica are applied: either way, a second version of an
    /// op ID.
    ///
    /// - Complexity: O(log n + b) for an op of b bytes.
    func holdsDifferentVersion(of op: Op) -> Bool {
        // A seal is no part of an op's identity: copies with and without one are the same op.
        let encoding = OpCodec.unsealedEncoding(of: op)
        if let held = buffer.heldOp(op.id) { return OpCodec.unsealedEncoding(of: held) != encoding }
        guard let index = table.index(of: op.id.replica),
              let stored = log.encodedOp(replicaIndex: index, counter: op.id.counter) else { return true }
        return !OpCodec.isSameOp(stored: stored, unsealed: encoding)
    }

    /// The op held here (applied or waiting) under this ID, if one starts there.
    ///
    /// - Complexity: O(log n + b) for an op of b bytes.
    package func heldVersion(of id: OpID) -> Op? {
        if let held = buffer.heldOp(id) { return held }
        guard let index = table.index(of: id.replica),
              let stored = log.encodedOp(replicaIndex: index, counter: id.counter) else { return nil }
        var reader = ByteReader(Array(stored))
        return try? OpCodec.decode(from: &reader)
    }

    /// Makes this replica a new incarnation: from now on it makes its ops under `newID` (a replica
    /// ID never used before), and the ops made under its old ID stay what they are, ops of another
    /// replica of the space. Every op and all state are kept.
    ///
    /// - Throws: `tooManyReplicas` when the space already has 65,536 replica IDs.
    package mutating func reincarnate(as newID: ReplicaID) throws(ModelError) {
        guard table.register(newID) != nil else { throw .tooManyReplicas }
        id = newID
    }

    /// The IDs of the ops held for missing dependencies.
    package var heldOpIDs: Set<OpID> {
        Set(buffer.heldOps.map(\.id))
    }

    /// The ops known to be missing: per replica, the gaps in its chain of ops (`previous`) before
    /// and between the held ops, and the counters up to each other dependency held ops wait for.
    /// Ops lost with nothing held after them cannot be seen here.
    ///
    /// - Complexity: O(h log h) for h held ops.
    package var missingRanges: [MissingRange] {
        guard buffer.count > 0 else { return [] }
        var ranges: [MissingRange] = []
        var chains: [ReplicaID: [Op]] = [:]
        for op in buffer.heldOps { chains[op.id.replica, default: []].append(op) }
        for (replica, held) in chains {
            var last = table.appliedCounter(of: replica)
            for op in held.sorted(by: { $0.id.counter < $1.id.counter }) {
                if op.previous > last { ranges.append(MissingRange(replica: replica, first: last + 1, last: op.previous)) }
                last = max(last, op.lastCounter)
            }
        }
        for dependency in buffer.missing where chains[dependency.replica] == nil {
            let applied = table.appliedCounter(of: dependency.replica)
            if dependency.counter > applied {
                ranges.append(MissingRange(replica: dependency.replica, first: applied + 1, last: dependency.counter))
            }
        }
        var merged: [MissingRange] = []
        for range in ranges.sorted(by: { ($0.replica, $0.first) < ($1.replica, $1.first) }) {
            if let previous = merged.last, previous.replica == range.replica, range.first <= previous.last + 1 {
                merged[merged.count - 1].last = max(previous.last, range.last)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}

/// Counters of one replica of which this replica lacks ops that held ops depend on.
package struct MissingRange: Hashable, Sendable, CustomStringConvertible {
    /// The replica whose ops are missing.
    package var replica: ReplicaID
    /// The first counter not applied.
    package var first: UInt64
    /// The greatest counter that held ops wait for.
    package var last: UInt64

    /// Creates a range.
    package init(replica: ReplicaID, first: UInt64, last: UInt64) {
        self.replica = replica
        self.first = first
        self.last = last
    }

    /// `12@r` or `12...15@r`.
    package var description: String {
        first == last ? "\(first)@\(replica)" : "\(first)...\(last)@\(replica)"
    }
}

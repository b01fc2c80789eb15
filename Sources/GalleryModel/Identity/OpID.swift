/// The identity of an op, and of the item or slot it created: a Lamport timestamp `counter@replica`.
///
/// Op IDs are totally ordered by counter, then by replica. That order decides every
/// last-writer-wins conflict (moves, field updates): the greater ID wins.
package struct OpID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The Lamport counter; the first op of a replica has counter 1 or more.
    package var counter: UInt64
    /// The replica that made the op.
    package var replica: ReplicaID

    /// Creates an op ID.
    package init(counter: UInt64, replica: ReplicaID) {
        self.counter = counter
        self.replica = replica
    }

    package static func < (lhs: OpID, rhs: OpID) -> Bool {
        lhs.counter != rhs.counter ? lhs.counter < rhs.counter : lhs.replica < rhs.replica
    }

    /// `counter@replica`, the replica in hex, e.g. `12@00000000000000a1`.
    package var description: String {
        "\(counter)@\(replica)"
    }

    /// Parses `counter@replica` as printed by `description`.
    package init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let counter = UInt64(parts[0]), counter > 0,
              let replica = ReplicaID(parts[1]) else { return nil }
        self.init(counter: counter, replica: replica)
    }

    /// The ID `offset` counters after this one, from the same replica (the items of an insert run).
    package func advanced(by offset: Int) -> OpID {
        OpID(counter: counter + UInt64(offset), replica: replica)
    }
}

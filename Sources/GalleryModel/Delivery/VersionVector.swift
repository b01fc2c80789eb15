/// What a replica has: for each replica of the space, the highest counter of its ops applied.
///
/// Each replica's ops are applied in counter order (every op names its predecessor), so an op
/// `c@r` is included exactly when `c <= vector[r]`.
package struct VersionVector: Hashable, Sendable, CustomStringConvertible {
    /// Highest applied counter per replica; replicas with nothing applied are absent.
    package private(set) var counters: [ReplicaID: UInt64]

    /// Creates a version vector.
    package init(_ counters: [ReplicaID: UInt64] = [:]) {
        self.counters = counters.filter { $0.value > 0 }
    }

    /// The highest counter applied from `replica`, 0 when none.
    package subscript(replica: ReplicaID) -> UInt64 {
        get { counters[replica] ?? 0 }
        set { counters[replica] = newValue == 0 ? nil : newValue }
    }

    /// Whether the op with this ID is included.
    package func contains(_ id: OpID) -> Bool {
        id.counter <= self[id.replica]
    }

    /// Whether every op included in `other` is included here.
    package func includes(_ other: VersionVector) -> Bool {
        other.counters.allSatisfy { self[$0.key] >= $0.value }
    }

    /// The sum of the counters, saturating at `UInt64.max`: a vector that includes another has a
    /// total at least as large, so a larger total names ops this vector lacks.
    package var total: UInt64 {
        var sum: UInt64 = 0
        for counter in counters.values {
            let (next, overflow) = sum.addingReportingOverflow(counter)
            if overflow { return .max }
            sum = next
        }
        return sum
    }

    /// The pointwise maximum of two vectors.
    package func merged(with other: VersionVector) -> VersionVector {
        VersionVector(counters.merging(other.counters, uniquingKeysWith: max))
    }

    /// `{replica:counter, ...}` sorted by replica.
    package var description: String {
        let entries = counters.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }
        return "{" + entries.joined(separator: ", ") + "}"
    }
}

/// An op ID packed into 64 bits for a replica's own tables: a replica index (16 bits) assigned in
/// order of first appearance on this replica, and the Lamport counter (48 bits).
///
/// Packed IDs are local to one replica: the same op has different packed IDs on different replicas.
/// They never travel; ops and comparisons that must agree everywhere use `OpID`.
struct PackedID: Hashable {
    /// Bits of the counter.
    static let counterBits = 48
    /// The largest counter a packed ID holds; ops with larger counters are refused.
    static let maxCounter: UInt64 = (1 << 48) - 1
    /// The largest number of distinct replicas one replica can know.
    static let maxReplicas = 1 << 16

    var raw: UInt64

    /// Wraps a packed value as stored (snapshots).
    init(raw: UInt64) {
        self.raw = raw
    }

    init(replicaIndex: Int, counter: UInt64) {
        raw = UInt64(replicaIndex) << UInt64(Self.counterBits) | counter
    }

    var replicaIndex: Int {
        Int(raw >> UInt64(Self.counterBits))
    }

    var counter: UInt64 {
        raw & Self.maxCounter
    }
}

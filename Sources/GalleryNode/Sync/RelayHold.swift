/// Durable ops waiting to be relayed together (`SyncNode+RelayHold`): held only while other writes
/// are in flight (the group commit's, or a link's), for at most `NodeConfiguration.relayHold`.
struct RelayHold {
    /// Batches durable since the last flush, in log order, for every link.
    var batches: [SyncNode.InFlight] = []
    /// Batches for one link each, whose outbox was still writing when they were due.
    var corked: [Int: [SyncNode.InFlight]] = [:]
    /// Whether the flush at the latest (`relayHold` after the first held batch) is scheduled.
    var armed = false

    /// The corked batches by link, in link order; none are left.
    mutating func takeCorked() -> [(link: Int, batches: [SyncNode.InFlight])] {
        defer { corked = [:] }
        return corked.keys.sorted().map { ($0, corked[$0] ?? []) }
    }
}

/// Durable ops waiting to be relayed together (`SyncNode+RelayHold`): held only while other writes
/// are in flight, for at most `NodeConfiguration.relayHold`.
struct RelayHold {
    /// Batches durable since the last flush, in log order.
    var batches: [SyncNode.InFlight] = []
    /// Whether the flush at the latest (`relayHold` after the first held batch) is scheduled.
    var armed = false
}

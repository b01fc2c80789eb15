/// Durable ops waiting to be relayed together (`SyncNode+RelayHold`): after a quiet spell an op
/// goes out at once; while ops keep coming, those of the next `NodeConfiguration.relayHold` wait and
/// go to each peer in one frame and one record instead of one each.
struct RelayHold {
    /// Batches durable since the last flush, in log order.
    var batches: [SyncNode.InFlight] = []
    /// When (uptime, nanoseconds) ops last went out to the peers; nil before the first.
    var lastFlush: UInt64?
    /// Whether a flush is scheduled.
    var armed = false
}

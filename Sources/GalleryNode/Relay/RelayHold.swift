/// Relaying under load, corked like TCP's autocorking (protocol.md, "Relay", "Batching"): a durable
/// batch goes to the peers at once when no other write is in flight (nothing applied waits for the
/// group commit), so a lone editor or a quiet relay pays nothing; what becomes durable while more
/// writes are still in flight is held and goes out together once the pipeline drains, or `cap`
/// after the first held batch at the latest; so do the ops for a link whose previous frames still
/// wait in its outbox (the link's write is in flight). A busy link then carries many ops per frame
/// and per record (the record's 22 bytes of header and tag, the frame's 6, are paid per flush, not
/// per op). Sans I/O: the node relays, arms the timer and flushes as `take` and `fired` say
/// (`SyncNode.relayOrHold`). Owned by the node's loop.
struct RelayHold {
    /// What to do with batches just durable (`take`).
    enum Step: Equatable {
        /// No hold (`cap` is 0): send them now, uncorked.
        case send
        /// The pipeline is idle: send every held batch now (`takeHeld`), corking links still writing.
        case flush
        /// Held: the flush at the latest was not scheduled yet and must be, `cap` from now.
        case arm
        /// Held: the flush at the latest is scheduled already.
        case wait
    }

    /// The longest an op is held, in nanoseconds (`NodeConfiguration.relayHold`); 0 holds nothing.
    let cap: UInt64
    /// Batches durable since the last flush, in log order, for every link.
    private(set) var batches: [SyncNode.InFlight] = []
    /// Batches for one link each, whose outbox was still writing when they were due.
    private(set) var corked: [Int: [SyncNode.InFlight]] = [:]
    /// Whether the flush at the latest (`cap` after the first held batch) is scheduled.
    private(set) var armed = false

    /// A hold of at most `cap` nanoseconds.
    init(cap: UInt64) {
        self.cap = cap
    }

    /// Takes `durable` batches, just durable; `pipelineIdle` when nothing else applied waits for
    /// the group commit. Holds them unless `cap` is 0 (then the caller sends them at once).
    mutating func take(_ durable: [SyncNode.InFlight], pipelineIdle: Bool) -> Step {
        guard cap > 0 else { return .send }
        batches += durable
        if pipelineIdle { return .flush }
        return arm() ? .arm : .wait
    }

    /// Keeps batches for one link whose outbox is still writing: they go with the next flush.
    /// True when that flush must be scheduled now.
    mutating func cork(_ due: [SyncNode.InFlight], on link: Int) -> Bool {
        corked[link, default: []] += due
        return arm()
    }

    /// The held batches, to send now; none are left.
    mutating func takeHeld() -> [SyncNode.InFlight] {
        defer { batches = [] }
        return batches
    }

    /// The flush at the latest fired: the corked batches by link, in link order (on each link
    /// they go first: they are older than the held ones), and the held batches; none are left,
    /// and the next hold schedules a flush again.
    mutating func fired() -> (corked: [(link: Int, batches: [SyncNode.InFlight])], held: [SyncNode.InFlight]) {
        armed = false
        defer { corked = [:] }
        let byLink = corked.keys.sorted().map { ($0, corked[$0] ?? []) }
        return (byLink, takeHeld())
    }

    /// Marks the flush at the latest scheduled; false when it was already.
    private mutating func arm() -> Bool {
        guard !armed else { return false }
        armed = true
        return true
    }
}

import GalleryModel

/// What of the replica is durable and what waits for it: the node's durability component.
///
/// Ops applied on the node's loop are submitted to the group-commit writer in batches, in log
/// order; the writer reports how far the log is durable. Only durable ops are sent, announced,
/// published or acknowledged: this type decides which batches, progress reports and waiting
/// commands a report releases, and keeps the durable version vector that `caught_up` and
/// `ihave_total` may claim. Sans I/O: the node acts on what it returns. Owned by the node's loop.
struct Durability {
    /// Ops applied in one turn (a command, a received frame) and not yet durable.
    struct Batch {
        /// The ops, in the order applied.
        var ops: [Op]
        /// The replica's op count after them: they are at log positions `end - ops.count ..< end`.
        var end: Int
        /// The connection they came from (not sent back there), nil for local ops.
        var source: Int?
    }

    /// What a report of the writer released, in log order.
    struct Released {
        /// The batches that became durable.
        var batches: [Batch]
        /// Transfer progress whose placeholders are now durable, to publish.
        var progress: [[TransferProgress]]
        /// The commands waiting for these ops, to wake.
        var tickets: [DurabilityTicket]
    }

    /// The replica's first `count` ops are durable: only they are ever sent.
    private(set) var count: Int
    /// The version vector of the durable ops (what a `caught_up` may claim).
    private(set) var version: VersionVector
    /// The sum of `version`'s counters (saturating): what `ihave_total` announces.
    private(set) var total: UInt64
    /// Batches submitted and not yet durable, in log order.
    private(set) var inFlight: [Batch] = []
    private var waiters: [(end: Int, ticket: DurabilityTicket)] = []
    private var heldProgress: [(end: Int, progress: [TransferProgress])] = []

    /// Everything in `replica` counts as durable (it was loaded from storage, or nothing persists).
    init(replica: Replica) {
        count = replica.opCount
        version = replica.version
        total = replica.version.total
    }

    /// Whether no write is in flight: everything applied is durable.
    var isIdle: Bool { inFlight.isEmpty }

    /// The log's end as far as submitted (durable or in flight).
    var submittedEnd: Int { inFlight.last?.end ?? count }

    /// Takes a batch just applied and handed to the writer, ending at log position `end`.
    mutating func submitted(_ ops: [Op], end: Int, source: Int?) {
        precondition(!ops.isEmpty, "an empty batch is never submitted")
        precondition(end - ops.count == submittedEnd, "batches are submitted in log order, without gaps")
        inFlight.append(Batch(ops: ops, end: end, source: source))
    }

    /// A ticket woken once the log is durable up to `end`.
    mutating func ticket(until end: Int) -> DurabilityTicket {
        assert(end > count && end <= submittedEnd, "a ticket waits for ops in flight")
        let ticket = DurabilityTicket()
        waiters.append((end, ticket))
        return ticket
    }

    /// Holds `progress` until the log is durable up to `end`; false when it is already.
    mutating func hold(_ progress: [TransferProgress], until end: Int) -> Bool {
        guard end > count else { return false }
        heldProgress.append((end, progress))
        return true
    }

    /// The writer reports the log durable up to `end`: what that releases, nil when nothing new.
    mutating func becameDurable(upTo end: Int) -> Released? {
        guard end > count else { return nil }
        precondition(end <= submittedEnd, "the writer reports only what was submitted")
        var taken = 0
        while taken < inFlight.count && inFlight[taken].end <= end { taken += 1 }
        let batches = Array(inFlight[..<taken])
        inFlight.removeFirst(taken)
        count = end
        for batch in batches {
            // An insert of n items holds n counters: the vector names the last (protocol.md, "Identifiers").
            for op in batch.ops where version[op.id.replica] < op.lastCounter {
                let (sum, overflow) = total.addingReportingOverflow(op.lastCounter - version[op.id.replica])
                total = overflow ? .max : sum
                version[op.id.replica] = op.lastCounter
            }
        }
        var shown = 0
        while shown < heldProgress.count && heldProgress[shown].end <= end { shown += 1 }
        let progress = heldProgress[..<shown].map(\.progress)
        heldProgress.removeFirst(shown)
        var woken = 0
        while woken < waiters.count && waiters[woken].end <= end { woken += 1 }
        let tickets = waiters[..<woken].map(\.ticket)
        waiters.removeFirst(woken)
        assert(inFlight.first.map { $0.end > count } ?? true, "what stays in flight lies beyond the durable end")
        return Released(batches: batches, progress: progress, tickets: tickets)
    }

    /// Storing failed: every waiting command is told (the ops stay in flight, stored later).
    mutating func takeWaiters() -> [DurabilityTicket] {
        defer { waiters = [] }
        return waiters.map(\.ticket)
    }
}

import GalleryModel
import GalleryNode
import Synchronization

/// A node's op log in memory, outliving the node's crashes: what `store` was handed is synced
/// (the group commit's durability step is one simulated fsync); what the node applied but had not
/// stored yet is lost with the node's memory at a crash, exactly like unsynced writes.
///
/// It also keeps the ledger the invariants need: which ops were ever durable here and when, and
/// ops stored twice (a duplicate).
/// The simulation runs on one thread: its lock is never contended, it lets the compiler check
/// the type.
final class SimulatedOpStore: OpStore, Sendable {
    /// The ledger.
    private struct Ledger {
        var synced: [Op] = []
        var storedIDs: Set<OpID> = []
        var duplicates: [OpID] = []
        var batches = 0
        var onSynced: @Sendable (Op) -> Void = { _ in }
        /// Where the last batch began in `synced`.
        var lastBatchStart = 0
        /// Where the writes the sabotage loses begin in `synced` (`markLie`), if marked.
        var lieStart: Int?
    }

    private let ledger = Mutex(Ledger())

    /// Ops synced, in order.
    var synced: [Op] { ledger.withLock { $0.synced } }
    /// Ops handed to `store` again though already synced here.
    var duplicates: [OpID] { ledger.withLock { $0.duplicates } }
    /// Stores made (fsyncs).
    var batches: Int { ledger.withLock { $0.batches } }
    /// Told of every op the first time it is synced here (after the batch is stored).
    var onSynced: @Sendable (Op) -> Void {
        get { ledger.withLock { $0.onSynced } }
        set { ledger.withLock { $0.onSynced = newValue } }
    }

    func store(_ ops: [Op]) throws {
        let (fresh, tell) = ledger.withLock { ledger -> ([Op], @Sendable (Op) -> Void) in
            ledger.batches += 1
            ledger.lastBatchStart = ledger.synced.count
            var fresh: [Op] = []
            for op in ops {
                guard ledger.storedIDs.insert(op.id).inserted else {
                    ledger.duplicates.append(op.id)
                    continue
                }
                ledger.synced.append(op)
                fresh.append(op)
            }
            return (fresh, ledger.onSynced)
        }
        for op in fresh { tell(op) }
    }

    /// The replica a restarted node opens: the synced ops replayed.
    func replay(id: ReplicaID) -> Replica {
        var replica = Replica(id: id)
        for op in synced { replica.receive(op) }
        return replica
    }

    /// Sabotage: the writes from now on are those `forgetLastBatch` loses (an op made next, and
    /// whatever is stored after it), not only the last batch.
    func markLie() {
        ledger.withLock { $0.lieStart = $0.synced.count }
    }

    /// Sabotage: loses the last batch (or what was stored since `markLie`) although `store`
    /// returned (storage that lies about fsync).
    func forgetLastBatch() {
        ledger.withLock { ledger in
            let start = min(ledger.lieStart ?? ledger.lastBatchStart, ledger.synced.count)
            for op in ledger.synced[start...] { ledger.storedIDs.remove(op.id) }
            ledger.synced.removeSubrange(start...)
            ledger.lieStart = nil
        }
    }

    /// Whether an op was synced here.
    func contains(_ id: OpID) -> Bool {
        ledger.withLock { $0.storedIDs.contains(id) }
    }
}

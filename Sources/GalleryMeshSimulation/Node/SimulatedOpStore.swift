import GalleryModel
import GalleryNode

/// A node's op log in memory, outliving the node's crashes: what `store` was handed is synced
/// (the group commit's durability step is one simulated fsync); what the node applied but had not
/// stored yet is lost with the node's memory at a crash, exactly like unsynced writes.
///
/// It also keeps the ledger the invariants need: which ops were ever durable here and when, and
/// ops stored twice (a duplicate).
///
/// `@unchecked Sendable`: used on the scheduler's thread only.
final class SimulatedOpStore: OpStore, @unchecked Sendable {
    /// Ops synced, in order.
    private(set) var synced: [Op] = []
    private var storedIDs: Set<OpID> = []
    /// Ops handed to `store` again though already synced here.
    private(set) var duplicates: [OpID] = []
    /// Stores made (fsyncs).
    private(set) var batches = 0
    /// Told of every op the first time it is synced here.
    var onSynced: (Op) -> Void = { _ in }

    /// Where the last batch began in `synced`.
    private var lastBatchStart = 0
    /// Where the writes the sabotage loses begin in `synced` (`markLie`), if marked.
    private var lieStart: Int?

    func store(_ ops: [Op]) throws {
        batches += 1
        lastBatchStart = synced.count
        for op in ops {
            guard storedIDs.insert(op.id).inserted else {
                duplicates.append(op.id)
                continue
            }
            synced.append(op)
            onSynced(op)
        }
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
        lieStart = synced.count
    }

    /// Sabotage: loses the last batch (or what was stored since `markLie`) although `store`
    /// returned (storage that lies about fsync).
    func forgetLastBatch() {
        let start = min(lieStart ?? lastBatchStart, synced.count)
        for op in synced[start...] { storedIDs.remove(op.id) }
        synced.removeSubrange(start...)
        lieStart = nil
    }

    /// Whether an op was synced here.
    func contains(_ id: OpID) -> Bool {
        storedIDs.contains(id)
    }
}

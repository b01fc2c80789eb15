import Foundation
import GalleryIO
import GalleryModel
import GalleryWire

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Storage faults: when ops cannot be stored (a full disk, a read-only directory, a file size
/// limit), the node keeps serving reads (the command line's `list` and `status`, peers' fetches of
/// blobs), refuses local changes with the reason, keeps the ops it applied but could not store out
/// of every peer's reach, and retries storing them until it works; then it sends them on and
/// answers the catch-ups it deferred.
extension SyncNode {
    /// How often a node that cannot store ops tries again.
    static let storageRetryInterval = 0.5

    /// Makes ops durable, or, while storing fails, keeps them unsent in `unstoredOps`; true when
    /// they are durable (or the node does not persist). Caller holds `condition`.
    func store(_ ops: [Op], local: Bool) -> Bool {
        guard let persist = configuration.persist else { return true }
        if storageFault != nil {
            unstoredOps += ops
            return false
        }
        do {
            try persist(ops, local)
            return true
        } catch {
            unstoredOps += ops
            storageFault = Self.describeStorageFailure(error)
            configuration.log("\(configuration.name): \(storageFault ?? ""): \(ops.count) ops not stored; "
                + "refusing changes and sending nothing until storing works again (retrying every \(Self.storageRetryInterval) s)")
            Thread.detachNewThread { [self] in retryStoring() }
            return false
        }
    }

    /// "cannot write to DIR: REASON" for a failed system call on a path, else the error's text.
    static func describeStorageFailure(_ error: any Error) -> String {
        if let storage = error as? StorageError, case .io(_, let path, let code) = storage {
            let directory = (path as NSString).deletingLastPathComponent
            return "cannot write to \(directory): \(String(cString: strerror(code)))"
        }
        return "cannot store ops: \(error.localizedDescription)"
    }

    /// Tries to store the unstored ops every `storageRetryInterval` until it works or the node
    /// stops; then sends them to the live peers and answers the deferred catch-ups.
    private func retryStoring() {
        while true {
            let deadline = Date().addingTimeInterval(Self.storageRetryInterval)
            let done = condition.withLock { () -> Bool in
                while running && condition.wait(until: deadline) {}
                guard running, storageFault != nil, let persist = configuration.persist else { return true }
                let ops = unstoredOps
                do {
                    try persist(ops, false)
                } catch {
                    let reason = Self.describeStorageFailure(error)
                    if reason != storageFault {
                        storageFault = reason
                        configuration.log("\(configuration.name): \(reason)")
                    }
                    return false
                }
                storageFault = nil
                unstoredOps = []
                configuration.log("\(configuration.name): storing works again: \(ops.count) ops stored; sending them and accepting changes")
                send(ops, except: nil)
                let deferred = deferredCatchUps
                deferredCatchUps = [:]
                for (id, version) in deferred {
                    if let connection = connections[id] { catchUpLater(connection, from: version) }
                }
                condition.broadcast()
                return true
            }
            if done { return }
        }
    }

    /// Answers a deferred `sync_request` off the lock (`catchUp` takes it). Caller holds `condition`.
    private func catchUpLater(_ connection: Connection, from version: VersionVector) {
        Thread.detachNewThread { [self] in catchUp(connection, from: version) }
    }

    /// Refuses an op that carries the ID of an op held here with other content: says so on the
    /// node's log, keeps it for `status`, and closes the connection with `divergent_op`.
    func reportDivergentOp(_ op: Op, from connection: Connection) {
        let peer = connection.peer?.name ?? connection.remote
        let held = read { $0.heldVersion(of: op.id) }
        let entry = DivergentOp(
            id: op.id.description, peer: peer, received: String(describing: op.action),
            held: held.map { String(describing: $0.action) })
        condition.withLock {
            divergentOpCount += 1
            divergentOps.append(entry)
            if divergentOps.count > DivergentOp.kept { divergentOps.removeFirst(divergentOps.count - DivergentOp.kept) }
        }
        configuration.log("\(configuration.name): DIVERGENT OP \(op.id) from \(peer): it differs from the op held here "
            + "under that ID (received \(entry.received); held \(entry.held ?? "none starts at that counter")); refused, connection closed")
        connection.close(.divergentOp, "op \(op.id) differs from the op held under that ID")
    }

    /// What `status` shows of the node's storage and of ops it lacks or refused.
    public var health: NodeHealth {
        condition.withLock {
            NodeHealth(
                storage: storageFault, unstoredOps: unstoredOps.count,
                missingOps: replica.missingRanges.map(\.description),
                divergentOps: divergentOps, divergentOpCount: divergentOpCount)
        }
    }
}

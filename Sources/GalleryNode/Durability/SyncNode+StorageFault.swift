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
/// of every peer's reach, and retries storing them (the group-commit writer, every
/// `storageRetryInterval`) until it works; then it sends them on and answers the catch-ups it
/// deferred. All on the loop, from the writer's reports.
extension SyncNode {
    /// How often a node that cannot store ops tries again.
    static let storageRetryInterval = 0.5

    /// The writer could not store what waits: refuse changes, fail the commands waiting, log.
    func storingFailed(_ error: any Error) {
        let reason = Self.describeStorageFailure(error)
        guard storageFault == nil else {
            if reason != storageFault {
                storageFault = reason
                configuration.log("\(configuration.name): \(reason)")
            }
            return
        }
        storageFault = reason
        configuration.log("\(configuration.name): \(reason): \(replica.opCount - durability.count) ops not stored; "
            + "refusing changes and sending nothing until storing works again (retrying every \(Self.storageRetryInterval) s)")
        for ticket in durability.takeWaiters() { ticket.fail(reason) }
        notifyChange()
    }

    /// The writer stored what waited after a failure: accept changes again and answer the
    /// deferred catch-ups (the ops themselves go out with the durable report that follows).
    func storageWorksAgain(stored: Int) {
        storageFault = nil
        configuration.log("\(configuration.name): storing works again: \(stored) ops stored; sending them and accepting changes")
        for (id, version) in peerSessions.takeDeferredCatchUps() {
            // After the durable report is handled (this turn), so that the catch-up covers them.
            loop.async { [self] in startCatchUp(id, from: version) }
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

    /// Refuses an op that carries the ID of an op held here with other content: says so on the
    /// node's log, keeps it for `status`, and closes the connection with `divergent_op`. On the loop.
    func reportDivergentOp(_ op: Op, from connection: Connection) {
        let peer = connection.peer?.name ?? connection.remote
        let held = replica.heldVersion(of: op.id)
        let entry = DivergentOp(
            id: op.id.description, peer: peer, received: String(describing: op.action),
            held: held.map { String(describing: $0.action) })
        divergentOpCount += 1
        divergentOps.append(entry)
        if divergentOps.count > DivergentOp.kept { divergentOps.removeFirst(divergentOps.count - DivergentOp.kept) }
        configuration.log("\(configuration.name): DIVERGENT OP \(op.id) from \(connection.peer?.label ?? peer): it differs from the op held here "
            + "under that ID (received \(entry.received); held \(entry.held ?? "none starts at that counter")); refused, connection closed")
        connection.close(.divergentOp, "op \(op.id) differs from the op held under that ID")
    }

    /// What `status` shows of the node's storage and of ops it lacks or refused.
    package var health: NodeHealth {
        loop.sync {
            NodeHealth(
                storage: storageFault, unstoredOps: storageFault == nil ? 0 : replica.opCount - durability.count,
                missingOps: replica.missingRanges.map(\.description),
                divergentOps: divergentOps, divergentOpCount: divergentOpCount,
                identityConflicts: peerKeys.conflicts, repaired: configuration.repairedAtStart)
        }
    }
}

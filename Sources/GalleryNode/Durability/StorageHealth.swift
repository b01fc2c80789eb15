import Foundation
import GalleryIO
import GalleryModel
import GalleryWire

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// What `status` says of the node's storage and of the ops it refused: why ops cannot be stored
/// right now (a full disk, a read-only directory, a file size limit), if so, and the last ops
/// received under an ID held here with other content. While `fault` is set the node keeps
/// serving reads, refuses local changes with the reason, keeps the ops it applied but could not
/// store out of every peer's reach, and the group-commit writer retries storing them every
/// `retryInterval` until it works. Sans I/O. Owned by the node's loop.
struct StorageHealth {
    /// How often a node that cannot store ops tries again (seconds).
    static let retryInterval = 0.5

    /// Why ops cannot be stored right now, if so.
    var fault: String?
    /// Ops received under an ID this node holds with other content, most recent last (at most
    /// `DivergentOp.kept`).
    private(set) var divergentOps: [DivergentOp] = []
    /// Divergent ops seen since the node started (`divergentOps` keeps the last few).
    private(set) var divergentOpCount = 0

    /// What a failure to store changed.
    enum FaultChange: Equatable {
        /// Storing worked until now: this is why it stopped.
        case began(String)
        /// Storing was failing already, now for this other reason.
        case changed(String)
        /// Storing was failing already, for the same reason.
        case unchanged
    }

    /// The writer could not store what waits, because of `error`.
    mutating func storingFailed(_ error: any Error) -> FaultChange {
        let reason = Self.describe(error)
        defer { fault = reason }
        guard let fault else { return .began(reason) }
        return fault == reason ? .unchanged : .changed(reason)
    }

    /// "cannot write to DIR: REASON" for a failed system call on a path, else the error's text.
    static func describe(_ error: any Error) -> String {
        if let storage = error as? StorageError, case .io(_, let path, let code) = storage {
            let directory = (path as NSString).deletingLastPathComponent
            return "cannot write to \(directory): \(String(cString: strerror(code)))"
        }
        return "cannot store ops: \(error.localizedDescription)"
    }

    /// Keeps `op`, received from `peer` under the ID of `held` (nil: none held starts at that
    /// counter), for `status`; returns what is kept.
    mutating func divergent(_ op: Op, from peer: String, held: Op?) -> DivergentOp {
        let entry = DivergentOp(
            id: op.id.description, peer: peer, received: String(describing: op.action),
            held: held.map { String(describing: $0.action) })
        divergentOpCount += 1
        divergentOps.append(entry)
        if divergentOps.count > DivergentOp.kept { divergentOps.removeFirst(divergentOps.count - DivergentOp.kept) }
        return entry
    }
}

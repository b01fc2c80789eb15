import Foundation
import GalleryModel
import Synchronization

/// Monotonic nanoseconds (`CLOCK_MONOTONIC` through Dispatch), comparable across threads.
func uptimeNanoseconds() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// What one node saw while the load ran: how many ops it applied (its own and its peers'), and
/// when it applied each peer op, recorded by its observer (on the node's event thread, once the ops
/// are durable). Latencies are worked out after the run, against the creation times
/// the pacers kept, so that no lock is shared between nodes while the load runs.
final class NodeRecorder: Sendable {
    private struct State {
        var applied = 0
        var arrivals: [(id: OpID, time: UInt64)] = []
    }

    private let state = Mutex(State())
    private let own: ReplicaID

    init(own: ReplicaID) {
        self.own = own
    }

    func record(_ ops: [Op]) {
        let now = uptimeNanoseconds()
        state.withLock { state in
            state.applied += ops.count
            for op in ops where op.id.replica != own { state.arrivals.append((op.id, now)) }
        }
    }

    var applied: Int { state.withLock { $0.applied } }
    var arrivals: [(id: OpID, time: UInt64)] { state.withLock { $0.arrivals } }
}

/// What one node's pacer did: ops made, slots skipped because the node was late, commands that
/// failed, and how long each `perform` took (lock wait, apply, fsync, queueing to peers).
struct PacerResult: Sendable {
    var made = 0
    var skipped = 0
    var failed = 0
    var performMicroseconds: [UInt32] = []
    var mix: [String: Int] = [:]
    /// When each op was created: the time just before the `perform` that made it (so the time
    /// its job waits in the node's inbox counts).
    var created: [(id: OpID, time: UInt64)] = []
}

import Foundation
import GalleryModel
import Synchronization

/// Monotonic nanoseconds (`CLOCK_MONOTONIC` through Dispatch), comparable across threads.
func uptimeNanoseconds() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// When each op of the load was created on its origin, by op ID: stamped just before the origin's
/// `perform` (so it includes waiting for the node's lock) and recorded inside it, before the node
/// stores or sends the op, so that no peer can apply an op whose creation time is not yet known.
final class CreationTimes: Sendable {
    private let times: Mutex<[OpID: UInt64]>

    init(capacity: Int) {
        times = Mutex(Dictionary(minimumCapacity: capacity))
    }

    func record(_ id: OpID, at time: UInt64) {
        times.withLock { $0[id] = time }
    }

    func time(of id: OpID) -> UInt64? {
        times.withLock { $0[id] }
    }

    var count: Int { times.withLock { $0.count } }
}

/// What one node saw while the load ran: ops applied (its own and its peers'), and the propagation
/// latency of each peer op of the load, recorded by the node's observer (under the node's lock, right
/// after the ops were stored and sent on).
final class NodeRecorder: Sendable {
    private struct State {
        var applied = 0
        /// Latencies in microseconds, from creation on the origin to application here.
        var latencies: [UInt32] = []
    }

    private let state: Mutex<State>
    private let created: CreationTimes
    private let own: ReplicaID

    init(own: ReplicaID, created: CreationTimes, expectedSamples: Int) {
        self.own = own
        self.created = created
        var state = State()
        state.latencies.reserveCapacity(expectedSamples)
        self.state = Mutex(state)
    }

    func record(_ ops: [Op]) {
        let now = uptimeNanoseconds()
        var samples: [UInt32] = []
        for op in ops where op.id.replica != own {
            guard let time = created.time(of: op.id) else { continue }
            samples.append(UInt32(min((now &- time) / 1_000, UInt64(UInt32.max))))
        }
        state.withLock { state in
            state.applied += ops.count
            state.latencies += samples
        }
    }

    var applied: Int { state.withLock { $0.applied } }
    var latencies: [UInt32] { state.withLock { $0.latencies } }
}

/// What one node's pacer did: ops made, slots skipped because the node was late, commands that
/// failed, and how long each `perform` took (lock wait, apply, fsync, queueing to peers).
struct PacerResult: Sendable {
    var made = 0
    var skipped = 0
    var failed = 0
    var performMicroseconds: [UInt32] = []
    var mix: [String: Int] = [:]
}

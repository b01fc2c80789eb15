import Foundation

/// The event loops of a node using `PeerIO.eventLoop`, and what runs on them: the listener and
/// the liveness pass.
///
/// `@unchecked Sendable`: the group is fixed; `listener` is guarded by `lock`; `liveness` is
/// touched by the liveness timer only (on the first loop).
final class NodeEventLoops: @unchecked Sendable {
    /// The loops: connections are assigned to them round robin.
    let group: EventLoopGroup
    private let lock = NSLock()
    private var storedListener: LoopListener?
    /// What the liveness pass carries from one run to the next. First loop only.
    var liveness: LivenessState
    /// The pause after accept failures (grows while descriptors stay exhausted). First loop only.
    var acceptBackoff: UInt64 = 0

    init(group: EventLoopGroup, liveness: LivenessState) {
        self.group = group
        self.liveness = liveness
    }

    /// The loop that accepts and runs the liveness pass.
    var first: EventLoop { group.loops[0] }

    /// The listener, once listening.
    var listener: LoopListener? {
        get { lock.withLock { storedListener } }
        set { lock.withLock { storedListener = newValue } }
    }
}

/// What the liveness pass carries from one run to the next.
struct LivenessState {
    /// When the pass last ran (uptime, nanoseconds).
    var previous = DispatchTime.now().uptimeNanoseconds
    /// When ops waiting on a missing dependency were last re-requested.
    var gaps: GapWatch
}

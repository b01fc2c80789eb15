import Foundation
import GalleryIO

/// The event loops of a node using `PeerIO.eventLoop`, and what runs on them: the listener and
/// the liveness timer (which queues the pass on the node's loop).
///
/// `@unchecked Sendable`: the group is fixed; `listener` is guarded by `lock`; `acceptBackoff` is
/// touched on the first loop only.
final class NodeEventLoops: @unchecked Sendable {
    /// The loops: connections are assigned to them round robin.
    let group: EventLoopGroup
    private let lock = NSLock()
    private var storedListener: LoopListener?
    /// The pause after accept failures (grows while descriptors stay exhausted). First loop only.
    var acceptBackoff: UInt64 = 0

    init(group: EventLoopGroup) {
        self.group = group
    }

    /// The loop that accepts and runs the liveness timer.
    var first: EventLoop { group.loops[0] }

    /// The listener, once listening.
    var listener: LoopListener? {
        get { lock.withLock { storedListener } }
        set { lock.withLock { storedListener = newValue } }
    }
}

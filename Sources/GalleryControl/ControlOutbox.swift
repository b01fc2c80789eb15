import Foundation
import GalleryIO
import GalleryNode
import GalleryWire

/// What waits to go to one command-line client: answers and heartbeats by priority, bounded, so
/// that a client that stops reading costs the node a bounded amount of memory and never blocks
/// it. Its channel pulls bytes from it when the socket has room.
///
/// Any thread may push; `@unchecked Sendable`: all state is guarded by `condition`.
final class ControlOutbox: OutboundByteSource, @unchecked Sendable {
    /// What a push did.
    enum PushResult: Equatable {
        /// Queued; `wake`: the channel had found the outbox empty, so it must be told to flush.
        case queued(wake: Bool)
        /// Over the limit: nothing queued.
        case full
        /// The outbox is closing: nothing queued.
        case closed
    }

    /// The most bytes of queued frames handed to the channel in one pull.
    static let pullBytes = 256 << 10

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: OutboundQueue
    private var closing = false
    /// Whether the channel last found nothing to write: the next push must wake it.
    private var drained = true
    private var lastSent = DispatchTime.now().uptimeNanoseconds

    /// An outbox refusing frames once `limit` bytes wait.
    init(limit: Int) {
        queue = OutboundQueue(limit: limit)
    }

    /// Queues a frame.
    func push(_ frame: Frame, priority: FramePriority) -> PushResult {
        condition.withLock {
            guard !closing else { return .closed }
            guard queue.push(frame, priority: priority) else { return .full }
            condition.broadcast()
            let wake = drained
            drained = false
            return .queued(wake: wake)
        }
    }

    /// Drops everything waiting and closes, after `farewell` (an error frame) when given; false
    /// when already closing. The channel closes once the farewell is out.
    @discardableResult
    func close(farewell: Frame?) -> Bool {
        condition.withLock {
            guard !closing else { return false }
            closing = true
            queue.removeAll()
            if let farewell { _ = queue.push(farewell, priority: .control) }
            condition.broadcast()
            return true
        }
    }

    /// When bytes were last written to the client (uptime, nanoseconds).
    var lastWrite: UInt64 { condition.withLock { lastSent } }

    func closeSource() {
        close(farewell: nil)
    }

    func wrote(_ count: Int) {
        condition.withLock { lastSent = DispatchTime.now().uptimeNanoseconds }
    }

    func pull(waiting: Bool) -> OutboundPull {
        condition.withLock {
            while waiting && queue.isEmpty && !closing { condition.wait() }
            if !queue.isEmpty { return .bytes(queue.popBytes(maximumBytes: Self.pullBytes)) }
            if closing { return .finished }
            drained = true
            return .idle
        }
    }
}

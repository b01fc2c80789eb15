import Foundation
import GalleryIO
import GalleryNode
import GalleryWire

/// What waits to go to one command-line client: answers and heartbeats by priority, bounded, so
/// that a client that stops reading costs the node a bounded amount of memory and never blocks
/// it. Its channel pulls bytes from it when the socket has room.
///
/// Any thread may push.
final class ControlOutbox: OutboundByteSource, Sendable {
    /// What a push did.
    enum PushResult: Equatable {
        /// Queued; `wake`: the channel had found the outbox empty, so it must be told to flush.
        case queued(wake: Bool)
        /// Over the limit: nothing queued.
        case full
        /// The outbox is closing: nothing queued.
        case closed
    }

    /// The frames waiting and the state of the client's side.
    private struct State {
        var queue: OutboundQueue
        var closing = false
        /// Whether the channel last found nothing to write: the next push must wake it.
        var drained = true
        var lastSent = DispatchTime.now().uptimeNanoseconds
    }

    /// The most bytes of queued frames handed to the channel in one pull.
    static let pullBytes = 256 << 10

    private let state: ConditionLock<State>

    /// An outbox refusing frames once `limit` bytes wait.
    init(limit: Int) {
        state = ConditionLock(State(queue: OutboundQueue(limit: limit)))
    }

    /// Queues a frame.
    func push(_ frame: Frame, priority: FramePriority) -> PushResult {
        let result = state.withLock { state -> PushResult in
            guard !state.closing else { return .closed }
            guard state.queue.push(frame, priority: priority) else { return .full }
            let wake = state.drained
            state.drained = false
            return .queued(wake: wake)
        }
        if case .queued = result { state.broadcast() }
        return result
    }

    /// Drops everything waiting and closes, after `farewell` (an error frame) when given; false
    /// when already closing. The channel closes once the farewell is out.
    @discardableResult
    func close(farewell: Frame?) -> Bool {
        let closed = state.withLock { state -> Bool in
            guard !state.closing else { return false }
            state.closing = true
            state.queue.removeAll()
            if let farewell { _ = state.queue.push(farewell, priority: .control) }
            return true
        }
        if closed { state.broadcast() }
        return closed
    }

    /// When bytes were last written to the client (uptime, nanoseconds).
    var lastWrite: UInt64 { state.withLock { $0.lastSent } }

    func closeSource() {
        close(farewell: nil)
    }

    func wrote(_ count: Int) {
        state.withLock { $0.lastSent = DispatchTime.now().uptimeNanoseconds }
    }

    func pull(waiting: Bool) -> OutboundPull {
        state.withLock(waitingUntil: nil) { state -> OutboundPull? in
            if waiting && state.queue.isEmpty && !state.closing { return nil }
            if !state.queue.isEmpty { return .bytes(state.queue.popBytes(maximumBytes: Self.pullBytes)) }
            if state.closing { return .finished }
            state.drained = true
            return .idle
        } ?? .finished
    }
}

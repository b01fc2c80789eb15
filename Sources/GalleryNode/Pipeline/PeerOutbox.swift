import Foundation
import GalleryIO
import GalleryWire

/// What waits to go to one peer: frames by priority (control before ops before bulk, bounded by
/// the slow-peer limit) and the fetches being served, a chunk at a time, oldest first, only when no
/// frame waits. Its channel pulls bytes from it when the socket has room.
///
/// Any thread may push; the state is under `condition` (a `ConditionLock`, one `NSCondition` round
/// per push or pull as before: the relay's measured hot path).
final class PeerOutbox: OutboundByteSource, Sendable {
    /// What a push did.
    enum PushResult: Equatable {
        /// Queued; `wake`: the channel had found the outbox empty, so it must be told to flush.
        case queued(wake: Bool)
        /// Over the slow-peer limit: nothing queued.
        case full
        /// The outbox is closing: nothing queued.
        case closed
    }

    /// The most fetches one connection serves at once.
    static let maximumServedFetches = 32
    /// The most bytes of queued frames handed to the channel in one pull.
    static let pullBytes = 256 << 10

    /// What the pushers and the channel share.
    private struct State {
        var queue: OutboundQueue
        /// Fetches being served, sent a chunk at a time, oldest first, when no frame waits.
        var servedFetches: [ChunkStream] = []
        var closing = false
        /// Seals every frame after the handshake; nil before.
        var sealer: RecordSealer?
        /// Whether the channel last found nothing to write: the next push must wake it.
        var drained = true
        var sentBytes = 0
        var lastSent: UInt64
        /// Runs once the queued bytes fall below `threshold` (a streaming catch-up's next batch).
        var drainWaiter: (threshold: Int, body: @Sendable () -> Void)?

        /// Queued: whether the channel must be woken (it had found the outbox empty).
        mutating func queued() -> PushResult {
            let wake = drained
            drained = false
            return .queued(wake: wake)
        }

        /// `bytes` (encoded frames) as sealed records, in the order written. Nil when the sealer
        /// is exhausted (2^64 records): the connection must end.
        mutating func seal(_ bytes: [UInt8]) -> [UInt8]? {
            guard var sealer else { return nil }
            self.sealer = nil
            defer { self.sealer = sealer }
            return try? sealer.seal(bytes)
        }
    }

    private let condition: ConditionLock<State>
    /// Where `lastSent` is read from.
    private let clock: any NodeClock

    /// Where written frames are counted by type, if anywhere.
    private let tally: WireTally?

    /// An outbox dropping a peer whose queued frames pass `limit` bytes.
    init(limit: Int, clock: any NodeClock = SystemClock(), tally: WireTally? = nil) {
        condition = ConditionLock(State(queue: OutboundQueue(limit: limit), lastSent: clock.now))
        self.clock = clock
        self.tally = tally
    }

    /// The slow-peer limit in bytes.
    var limit: Int { condition.withLock { $0.queue.limit } }

    /// Queues a frame; `backlog` frames (a catch-up) do not count against the limit.
    func push(_ frame: Frame, priority: FramePriority, backlog: Bool = false) -> PushResult {
        condition.withLock { state in
            guard !state.closing else { return .closed }
            guard state.queue.push(frame, priority: priority, exempt: backlog) else { return .full }
            // A frame on its way counts as sent for liveness: no heartbeat goes beside it.
            state.lastSent = clock.now
            condition.broadcast()
            return state.queued()
        }
    }

    /// Starts serving a fetch; nil when closing, false when the most fetches are served already,
    /// else whether the channel must be woken.
    func serve(_ stream: ChunkStream) -> PushResult? {
        condition.withLock { state in
            guard !state.closing else { return .closed }
            guard state.servedFetches.count < Self.maximumServedFetches else { return nil }
            state.servedFetches.removeAll { $0.request == stream.request }
            state.servedFetches.append(stream)
            condition.broadcast()
            return state.queued()
        }
    }

    /// Stops serving a fetch.
    func stopServing(_ request: UInt64) {
        condition.withLock { $0.servedFetches.removeAll { $0.request == request } }
    }

    /// Bytes of frames queued and not yet handed to the channel.
    var queuedBytes: Int { condition.withLock { $0.queue.byteCount } }

    /// Runs `body` once the queued bytes are below `threshold`: at once (on the caller's thread)
    /// when they are already, else on the channel's thread after the pull that brings them there.
    /// A later call replaces a waiter not yet run; closing drops it.
    func whenBelow(_ threshold: Int, _ body: @escaping @Sendable () -> Void) {
        let now = condition.withLock { state -> Bool in
            guard !state.closing else { return false }
            if state.queue.byteCount < threshold { return true }
            state.drainWaiter = (threshold, body)
            return false
        }
        if now { body() }
    }

    /// From now on frames go out in records sealed by `sealer` (the handshake is over); the
    /// frames queued before go out plain, first.
    func startSealing(_ sealer: RecordSealer) {
        condition.withLock { state in
            state.sealer = sealer
            state.queue.sealing = true
        }
    }

    /// Drops everything waiting and closes, after `farewell` (an error frame) when given; false
    /// when already closing. The channel closes once the farewell is out.
    @discardableResult
    func close(farewell: Frame?) -> Bool {
        condition.withLock { state in
            guard !state.closing else { return false }
            state.closing = true
            state.queue.removeAll()
            state.servedFetches.removeAll()
            state.drainWaiter = nil
            if let farewell { _ = state.queue.push(farewell, priority: .control) }
            condition.broadcast()
            return true
        }
    }

    func closeSource() {
        close(farewell: nil)
    }

    /// Whether `close` was called.
    var isClosing: Bool { condition.withLock { $0.closing } }

    /// Bytes written to the socket, and when a frame was last queued or bytes written (uptime,
    /// nanoseconds).
    var sent: (bytes: Int, last: UInt64) { condition.withLock { ($0.sentBytes, $0.lastSent) } }

    func wrote(_ count: Int) {
        condition.withLock { state in
            state.sentBytes += count
            state.lastSent = clock.now
        }
    }

    /// What the channel writes next: queued frames, else the next chunk of a served fetch.
    private enum Work {
        case frames([UInt8], drained: (@Sendable () -> Void)?)
        case failed
        case chunk(ChunkStream)
        case idle
        case finished
    }

    func pull(waiting: Bool) -> OutboundPull {
        while true {
            let work: Work = condition.withLock(waitingUntil: nil) { state -> Work? in
                if waiting && state.queue.isEmpty && state.servedFetches.isEmpty && !state.closing { return nil }
                if !state.queue.isEmpty {
                    let segment = state.queue.popSegment(maximumBytes: Self.pullBytes)
                    var drained: (@Sendable () -> Void)?
                    if let waiter = state.drainWaiter, state.queue.byteCount < waiter.threshold {
                        drained = waiter.body
                        state.drainWaiter = nil
                    }
                    guard segment.sealed else {
                        tally?.count(plaintext: segment.bytes, sealedCount: nil)
                        return .frames(segment.bytes, drained: drained)
                    }
                    guard let sealed = state.seal(segment.bytes) else { return .failed }
                    tally?.count(plaintext: segment.bytes, sealedCount: sealed.count)
                    return .frames(sealed, drained: drained)
                }
                if state.closing { return .finished }
                if state.servedFetches.isEmpty {
                    state.drained = true
                    return .idle
                }
                // The oldest fetch first: a requester asks in the order it wants the bytes (a
                // drag's, in drop order, each fetch a few chunks), so its placeholders fill in
                // that order; round robin finished them all at about the same time, in an order
                // of its own.
                return .chunk(state.servedFetches[0])
            }!
            switch work {
            case .frames(let bytes, let drained):
                drained?()
                return .bytes(bytes)
            case .failed: return .finished
            case .idle: return .idle
            case .finished: return .finished
            case .chunk(let stream):
                // Read outside the lock: ops and heartbeats queued meanwhile go out right after it.
                do {
                    guard let frame = try stream.nextFrame() else {
                        stopServing(stream.request)
                        continue
                    }
                    // The fetch stops counting against `maximumServedFetches` before its last chunk
                    // is written, so that the requester, which may ask again as soon as that chunk
                    // arrives, never finds the slot still taken.
                    if stream.isFinished { stopServing(stream.request) }
                    // Sealed under the lock, so that records leave in the order of their nonces.
                    let encoded = frame.encoded
                    guard let sealed = condition.withLock({ $0.seal(encoded) }) else { return .finished }
                    tally?.count(plaintext: encoded, sealedCount: sealed.count)
                    return .bytes(sealed)
                } catch {
                    stopServing(stream.request)
                    let failure = Message.fetchError(
                        id: stream.request, code: .internalError, message: "cannot read the blob: \(error.localizedDescription)")
                    _ = push(failure.frame, priority: failure.type.priority)
                }
            }
        }
    }
}

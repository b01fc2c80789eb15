import Foundation
import GalleryIO

/// The bytes a web connection has yet to write, pulled by its `StreamChannel` as the socket takes
/// them: whole responses, pieces of a blob, event-stream messages. Bounded by its user: a blob is
/// read a piece at a time only while fewer than `lowWater` bytes wait, and an event stream whose
/// reader lets more than `WebConnection.Limits.outboxLimit` bytes pile up is dropped.
///
/// Touched on its connection's event loop only (the channel pulls there): its state is
/// `LoopBound` to that loop's thread.
final class WebOutbox: OutboundByteSource, Sendable {
    /// Below this many waiting bytes a streamed response is asked for its next piece: a few
    /// pieces of a blob wait, so that the socket never waits for the disk (nor the disk for the
    /// loop), and no more.
    static let lowWater = 1 << 20

    private var chunks: [[UInt8]] { _read { yield boundChunks.value } _modify { yield &boundChunks.value } }
    private let boundChunks: LoopBound<[[UInt8]]>
    private var first: Int { _read { yield boundFirst.value } _modify { yield &boundFirst.value } }
    private let boundFirst: LoopBound<Int>
    private var finishing: Bool { _read { yield boundFinishing.value } _modify { yield &boundFinishing.value } }
    private let boundFinishing: LoopBound<Bool>
    /// Bytes handed to the channel but not yet written, plus those still queued.
    var buffered: Int { _read { yield boundBuffered.value } _modify { yield &boundBuffered.value } }
    private let boundBuffered: LoopBound<Int>
    /// When bytes last reached the socket (uptime, nanoseconds).
    var lastWrite: UInt64 { _read { yield boundLastWrite.value } _modify { yield &boundLastWrite.value } }
    private let boundLastWrite: LoopBound<UInt64>
    /// Called after a write once fewer than `lowWater` bytes wait (forwarded by `get`/`set`: a
    /// closure yielded by `_read`/`_modify` crashes the Swift 6.3 compiler).
    var drained: (() -> Void)? {
        get { boundDrained.value }
        set { boundDrained.value = newValue }
    }
    private let boundDrained: LoopBound<(() -> Void)?>

    /// An empty outbox for a connection on `owner`'s loop.
    init(owner: OwningThread) {
        boundDrained = LoopBound(nil, owner: owner)
        boundChunks = LoopBound([], owner: owner)
        boundFirst = LoopBound(0, owner: owner)
        boundFinishing = LoopBound(false, owner: owner)
        boundBuffered = LoopBound(0, owner: owner)
        boundLastWrite = LoopBound(DispatchTime.now().uptimeNanoseconds, owner: owner)
    }

    /// Sets `drained` before the outbox is shared (in its connection's `init`, on any thread).
    func setDrainedBeforeSharing(_ body: @escaping () -> Void) {
        boundDrained.uncheckedValue = body
    }

    /// Queues `bytes` after what waits.
    func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, !finishing else { return }
        chunks.append(bytes)
        buffered += bytes.count
    }

    /// Closes the connection once everything queued is written.
    func finish() { finishing = true }

    /// Whether `finish` was called.
    var isFinishing: Bool { finishing }

    func pull(waiting: Bool) -> OutboundPull {
        guard first < chunks.count else {
            chunks.removeAll(keepingCapacity: false)
            first = 0
            return finishing ? .finished : .idle
        }
        let next = chunks[first]
        chunks[first] = []
        first += 1
        return .bytes(next)
    }

    func wrote(_ count: Int) {
        buffered -= count
        lastWrite = DispatchTime.now().uptimeNanoseconds
        if buffered < Self.lowWater { drained?() }
    }

    func closeSource() {
        chunks = []
        first = 0
        buffered = 0
        finishing = true
        drained = nil
    }
}

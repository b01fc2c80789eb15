import Foundation
import GalleryIO

/// The bytes a web connection has yet to write, pulled by its `StreamChannel` as the socket takes
/// them: whole responses, pieces of a blob, event-stream messages. Bounded by its user: a blob is
/// read a piece at a time only while fewer than `lowWater` bytes wait, and an event stream whose
/// reader lets more than `WebConnection.Limits.outboxLimit` bytes pile up is dropped.
// unchecked Sendable: touched on its connection's event loop only (the channel pulls there); a loop's thread owns it
final class WebOutbox: OutboundByteSource, @unchecked Sendable {
    /// Below this many waiting bytes a streamed response is asked for its next piece: a few
    /// pieces of a blob wait, so that the socket never waits for the disk (nor the disk for the
    /// loop), and no more.
    static let lowWater = 1 << 20

    private var chunks: [[UInt8]] = []
    private var first = 0
    private var finishing = false
    /// Bytes handed to the channel but not yet written, plus those still queued.
    private(set) var buffered = 0
    /// When bytes last reached the socket (uptime, nanoseconds).
    private(set) var lastWrite = DispatchTime.now().uptimeNanoseconds
    /// Called after a write once fewer than `lowWater` bytes wait.
    var drained: (() -> Void)?

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

import Dispatch
import Foundation
import GalleryIO
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import GalleryWire
import Synchronization

/// Reads a control connection's frames on a thread of its own for the command line, and answers
/// the node's heartbeats there at once, whatever the caller is doing with the answers before them:
/// decoding a `watch` listing of 100,000 items (seconds on a loaded machine), or writing a redraw
/// to a standard output nobody reads. The node drops a client silent past its timeout, and a
/// client that answered heartbeats only between answers was dropped right after a large listing
/// (BENCHMARKS.md, "Watch cost per change at any size").
///
/// What it read waits for the caller, in order, up to `byteLimit` bytes of payloads (the node's
/// own outbox bound); past it the reader stops reading, and so answers no heartbeat either: a
/// client that truly cannot keep up is still dropped by the node, and holds a bounded amount of
/// memory until then.
final class ControlAnswerReader: Sendable {
    /// What the reader hands over, in order; after anything but `.message`, nothing more.
    enum Item: Sendable {
        /// A frame other than a heartbeat.
        case message(Message)
        /// The stream ended (the node closed the connection).
        case closed
        /// Receiving failed, or the caller's deadline or the silence limit passed.
        case failed(LocalFrameChannel.ReceiveFailure)
    }

    private struct State {
        var items: [Item] = []
        var head = 0
        var bytes = 0
        var stopped = false
    }

    private let fd: Int32
    private let byteLimit: Int
    private let state = Mutex(State())
    /// Signalled once per item queued.
    private let available = DispatchSemaphore(value: 0)
    /// Signalled when the caller took an item or stopped the reader: room may have been made.
    private let room = DispatchSemaphore(value: 0)
    /// Signalled once, when the reading thread has returned.
    private let finished = DispatchSemaphore(value: 0)

    /// Starts reading `fd` (a connected control socket, the request already sent) on a thread of
    /// its own; `silenceLimit` and `end` bound each wait as `LocalFrameChannel.receive` does.
    init(fd: Int32, silenceLimit: Duration, end: ContinuousClock.Instant?, byteLimit: Int = 4 * Int(FrameLimits.maximum)) {
        self.fd = fd
        self.byteLimit = byteLimit
        Thread.detachNewThread { [self] in
            read(silenceLimit: silenceLimit, end: end)
            finished.signal()
        }
    }

    /// The next item, waiting for it as long as the reader waits (the silence limit bounds it).
    func next() -> Item {
        available.wait()
        let item = state.withLock { state -> Item in
            let item = state.items[state.head]
            state.head += 1
            if case .message(let message) = item { state.bytes -= Self.size(of: message) }
            if state.head >= 64 && state.head * 2 >= state.items.count {
                state.items.removeFirst(state.head)
                state.head = 0
            }
            return item
        }
        room.signal()
        return item
    }

    /// Stops reading and waits until the reading thread has returned, so that the caller may then
    /// close the descriptor (no other socket can take its number while the thread still reads it).
    func stop() {
        state.withLock { $0.stopped = true }
        // Wakes a thread blocked in `poll`: the socket reads as ended.
        _ = shutdown(fd, Int32(SHUT_RDWR))
        room.signal()
        finished.wait()
    }

    /// The reading thread: frames until the stream ends, fails or the reader is stopped.
    private func read(silenceLimit: Duration, end: ContinuousClock.Instant?) {
        var channel = LocalFrameChannel(fd: fd)
        while true {
            let item: Item
            do throws(LocalFrameChannel.ReceiveFailure) {
                guard let message = try channel.receive(silenceLimit: silenceLimit, end: end) else {
                    push(.closed)
                    return
                }
                if case .heartbeat = message {
                    // Answered here, at once: the node does not drop a client that only listens
                    // (`watch`), however long the caller takes over what came before.
                    _ = channel.send(.heartbeat)
                    continue
                }
                item = .message(message)
            } catch {
                push(.failed(error))
                return
            }
            if !push(item) { return }
        }
    }

    /// Queues an item once there is room (or at once when it ends the stream); false when the
    /// reader was stopped.
    @discardableResult
    private func push(_ item: Item) -> Bool {
        let size: Int
        if case .message(let message) = item { size = Self.size(of: message) } else { size = 0 }
        while true {
            let outcome = state.withLock { state -> Bool? in
                if state.stopped { return false }
                // One item always fits, however large: a listing may be larger than the limit.
                guard size == 0 || state.bytes == 0 || state.bytes + size <= byteLimit else { return nil }
                state.items.append(item)
                state.bytes += size
                return true
            }
            switch outcome {
            case true?:
                available.signal()
                return true
            case false?:
                return false
            case nil:
                room.wait()
            }
        }
    }

    /// The bytes an item holds, as counted against the limit.
    private static func size(of message: Message) -> Int {
        if case .controlResponse(let bytes) = message { return bytes.count }
        return 0
    }
}

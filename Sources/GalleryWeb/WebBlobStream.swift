import Foundation
import GalleryNode
import Synchronization

/// The bytes of a blob a page asked for while this node fetches it from a peer: passed on as they
/// are stored (`DemandTap`), before the whole blob is verified.
///
/// The response is never completed with unverified bytes: its last byte is held back until the
/// fetch's answer says the blob hashed right and was stored; if it did not (`discarded`, or a
/// failure after the head went out), the connection is closed short of its `Content-Length`, so
/// the page sees an aborted response, never a wrong picture. A reader that falls more than
/// `queueLimit` bytes behind stops taking bytes from the fetch and reads the rest from the store
/// once the blob is in.
final class WebBlobStream: DemandTap, Sendable {
    /// Bytes queued for a slow reader before it reads the stored blob instead.
    static let queueLimit = 8 << 20

    /// What a reader of the stream gets next.
    enum Piece {
        case bytes([UInt8])
        /// Nothing yet: the waker registered is called when there is.
        case later
        /// The bytes cannot be had (wrong bytes, or the fetch failed): abort the response.
        case failed
    }

    private struct State {
        /// Chunks stored and not yet read, from `queueStart`.
        var queue: [[UInt8]] = []
        var queueStart = 0
        var queuedBytes = 0
        /// Bytes taken from the fetch (the offset the next chunk must start at).
        var taken = 0
        /// The fetch stopped passing bytes here (the reader fell behind, or bytes were missed).
        var detached = false
        /// The blob was verified and stored.
        var verified = false
        var failed = false
        /// Whether the answer's head was sent (then its end comes from here) or the whole reply was
        /// given another way (then the stream takes nothing more).
        var replied = false
        var waker: (@Sendable () -> Void)?
    }

    /// The blob's hash and size.
    let hash: String
    let size: Int
    private let state = Mutex(State())
    /// Called once, with the first bytes stored: the head goes out then.
    private let started: @Sendable () -> Void

    init(hash: String, size: Int, started: @escaping @Sendable () -> Void) {
        self.hash = hash
        self.size = size
        self.started = started
    }

    // MARK: The fetch's side

    func received(_ bytes: [UInt8], at offset: Int) -> Bool {
        let (take, start, wake) = state.withLock { state -> (Bool, Bool, (@Sendable () -> Void)?) in
            guard !state.detached, !state.failed, offset == state.taken else {
                state.detached = true
                return (false, false, nil)
            }
            if state.queuedBytes + bytes.count > Self.queueLimit {
                state.detached = true
                return (false, false, nil)
            }
            state.queue.append(bytes)
            state.queuedBytes += bytes.count
            state.taken += bytes.count
            let start = !state.replied
            state.replied = true
            let wake = state.waker
            state.waker = nil
            return (true, start, wake)
        }
        if start { started() }
        wake?()
        return take
    }

    func discarded() { fail() }

    // MARK: The answer's side

    /// Claims the reply for an answer that came before any byte was streamed: true when no head was
    /// sent (the caller answers whole, and the stream takes nothing more).
    func claimReply() -> Bool {
        state.withLock { state in
            guard !state.replied else { return false }
            state.replied = true
            state.detached = true
            return true
        }
    }

    /// The blob was verified and stored: the held-back end may go.
    func verified() {
        let wake = state.withLock { state in
            state.verified = true
            defer { state.waker = nil }
            return state.waker
        }
        wake?()
    }

    /// The bytes cannot be had: the response is aborted.
    func fail() {
        let wake = state.withLock { state in
            state.failed = true
            state.queue = []
            state.queuedBytes = 0
            defer { state.waker = nil }
            return state.waker
        }
        wake?()
    }

    // MARK: The connection's side

    /// Up to `maximum` bytes from `offset`: from the queue, or (once verified) from the store with
    /// `openStored`; `.later` registers `waker`. The blob's last byte waits for verification.
    func piece(at offset: Int, maximum: Int, waker: @escaping @Sendable () -> Void, openStored: () -> (any BlobReader)?) -> Piece {
        let queued = state.withLock { state -> Piece? in
            if state.failed { return .failed }
            let end = state.verified ? size : size - 1
            if let first = state.queue.first, state.queueStart < end {
                // Pieces are asked for in order; anything else aborts the response, never the node.
                guard state.queueStart == offset else { return .failed }
                let count = min(first.count, maximum, end - state.queueStart)
                let bytes: [UInt8]
                if count == first.count {
                    bytes = first
                    state.queue.removeFirst()
                } else {
                    bytes = Array(first[..<count])
                    state.queue[0] = Array(first[count...])
                }
                state.queueStart += count
                state.queuedBytes -= count
                return .bytes(bytes)
            }
            if state.verified { return nil }  // Read the rest from the store.
            state.waker = waker
            return .later
        }
        if let queued { return queued }
        guard let reader = openStored() else { return .failed }
        defer { reader.close() }
        guard let bytes = try? reader.read(count: min(maximum, size - offset), at: offset), !bytes.isEmpty else { return .failed }
        state.withLock { state in
            state.queue = []
            state.queuedBytes = 0
            state.queueStart = offset + bytes.count
        }
        return .bytes(bytes)
    }

    /// Whether `piece` would not answer `.later` now.
    var isReady: Bool {
        state.withLock { state in
            state.failed || state.verified || (!state.queue.isEmpty && state.queueStart < size - 1)
        }
    }
}

/// Cuts a byte stream into frames, refusing any frame longer than the current limit before
/// buffering it, so that a peer cannot make the receiver allocate beyond that limit.
package struct FrameDecoder: Sendable {
    /// The largest payload accepted now; raised once the handshake has declared it.
    package var maximumPayload: Int
    private var buffer: [UInt8] = []
    private var start = 0

    /// Creates a decoder that accepts payloads up to `maximumPayload` bytes.
    package init(maximumPayload: Int = FrameLimits.handshakeMaximum) {
        self.maximumPayload = maximumPayload
    }

    /// Bytes received but not yet returned as frames.
    package var bufferedCount: Int { buffer.count - start }

    /// Adds received bytes.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes after `transform` has rewritten them in place (it gets the copy in the
    /// decoder's buffer, never empty) and kept its first `n` bytes (`transform`'s result, 0 to
    /// keep none): a record is opened where it lies, without an array of its own.
    ///
    /// - Complexity: O(*n*) plus `transform`.
    package mutating func append(_ bytes: UnsafeRawBufferPointer, transformingInPlace transform: (UnsafeMutableRawBufferPointer) -> Int) {
        guard !bytes.isEmpty else { return }
        append(bytes)
        let first = buffer.count - bytes.count
        let kept = buffer.withUnsafeMutableBytes { all in
            transform(UnsafeMutableRawBufferPointer(rebasing: all[first...]))
        }
        buffer.removeLast(bytes.count - min(max(kept, 0), bytes.count))
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete frame, nil when more bytes are needed.
    ///
    /// - Throws: `WireError.frameTooLarge` as soon as a header announces too long a payload, and
    ///   `WireError.malformed` for reserved flag bits.
    package mutating func next() throws(WireError) -> Frame? {
        guard bufferedCount >= FrameLimits.headerSize else { return nil }
        let length = Int(buffer[start]) | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2]) << 16
            | Int(buffer[start + 3]) << 24
        guard length <= maximumPayload else { throw .frameTooLarge(length: length, limit: maximumPayload) }
        let flags = buffer[start + 5]
        guard flags & ~Frame.ignorableFlag == 0 else { throw .malformed("reserved flag bits \(flags)") }
        guard bufferedCount >= FrameLimits.headerSize + length else { return nil }
        let payloadStart = start + FrameLimits.headerSize
        let payloadEnd = payloadStart + length
        let frame = Frame(rawType: buffer[start + 4], flags: flags, payload: Array(buffer[payloadStart..<payloadEnd]))
        start = payloadEnd
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return frame
    }
}

import Foundation

/// The writing end of a `NonBlockingSocket`, whose delegate the event loop tells
/// `hasSpaceAvailable` (after a write found the socket full) and `errorOccurred`.
///
/// `write` never blocks: it returns the bytes the kernel took (0 when the socket is full: the
/// delegate gets `hasSpaceAvailable` once it has room), or -1 with `error`. Loop thread only.
final class NonBlockingSocketWriter: NonBlockingSocketEnd, WritingEnd {
    private var full = false

    /// Called by the socket when the loop finds it writable.
    func notify(_ event: Stream.Event, from stream: Stream) {
        if event == .hasSpaceAvailable { full = false }
        tell(event, from: stream)
    }

    var hasSpaceAvailable: Bool { status == .open && !full }

    func write(_ buffer: UnsafePointer<UInt8>, maxLength length: Int, for stream: Stream) -> Int {
        guard status == .open else {
            if error == nil { error = .closed }
            return -1
        }
        switch socket.send(buffer, length) {
        case .success(let count):
            if count < length {
                full = true
                socket.waitForSpace()
            }
            return count
        case .failure(let failure):
            return fail("send", errno: failure.code, stream)
        }
    }
}

import Foundation

/// The reading end of a `NonBlockingSocket`, whose delegate the event loop tells
/// `hasBytesAvailable`, `endEncountered` and `errorOccurred`.
///
/// `read` never blocks: it returns >0 bytes; 0 either when nothing is there now (the status stays
/// `.open` and `hasBytesAvailable` turns false until the loop says otherwise) or at end of stream
/// (the status is `.atEnd`, and the delegate gets `endEncountered`); -1 with `error` on failure
/// (the delegate gets `errorOccurred`). Loop thread only.
final class NonBlockingSocketReader: NonBlockingSocketEnd, ReadingEnd {
    private var available = false

    /// Called by the socket when the loop finds it readable.
    func notify(_ event: Stream.Event, from stream: Stream) {
        if event == .hasBytesAvailable { available = true }
        tell(event, from: stream)
    }

    var hasBytesAvailable: Bool { status == .open && available }

    func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int, for stream: Stream) -> Int {
        guard status == .open else { return status == .atEnd || status == .closed ? 0 : -1 }
        switch socket.receive(buffer, length) {
        case .success(nil):
            available = false
            return 0
        case .success(0?):
            available = false
            ended(stream)
            return 0
        case .success(let count?):
            return count
        case .failure(let failure):
            return fail("recv", errno: failure.code, stream)
        }
    }
}

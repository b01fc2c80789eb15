import Foundation

/// The reading end of a blocking socket: `read` blocks (call it from a dedicated thread) and
/// returns >0 bytes, 0 at end of stream or after a local close, or -1 with `error` set.
// unchecked Sendable: a BlockingSocketEnd with no state of its own (the end's is under `connection.lock`)
final class BlockingSocketReader: BlockingSocketEnd, ReadingEnd, @unchecked Sendable {
    var hasBytesAvailable: Bool { isUsable }

    func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int, for stream: Stream) -> Int {
        let start = begin("read", length: length) { status, _ in
            // Shut down by a local close: end of stream, not an error.
            if status == .open { status = .atEnd }
            return status == .atEnd || status == .closed ? 0 : -1
        }
        guard case .call(let descriptor) = start else { return start.result }
        let result = POSIX.receive(descriptor, buffer, length)
        return finish {
            switch result {
            case .success(let count):
                if count == 0 && lockedStatus == .open { lockedStatus = .atEnd }
                return count
            case .failure(let failure):
                if connection.isShutLocked {
                    // Woken by a local close: report end of stream, not an error.
                    if lockedStatus == .open { lockedStatus = .atEnd }
                    return 0
                }
                if lockedStatus == .open {
                    lockedStatus = .error
                    lockedError = .io(POSIX.describe("recv", errno: failure.code))
                }
                return -1
            }
        }
    }
}

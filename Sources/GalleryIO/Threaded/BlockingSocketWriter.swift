import Foundation

/// The writing end of a blocking socket: `write` blocks until every byte is handed to the kernel
/// (short sends are looped) and returns the full count, or -1 with `error` set. Concurrent writers
/// must serialize themselves.
// unchecked Sendable: a BlockingSocketEnd with no state of its own (the end's is under `connection.lock`)
final class BlockingSocketWriter: BlockingSocketEnd, WritingEnd, @unchecked Sendable {
    var hasSpaceAvailable: Bool { isUsable }

    func write(_ buffer: UnsafePointer<UInt8>, maxLength length: Int, for stream: Stream) -> Int {
        let start = begin("write", length: length) { status, error in
            if status == .open {
                // Shut down by a close of either end.
                status = .error
                error = .closed
            } else if status == .closed && error == nil {
                error = .closed
            }
            return -1
        }
        guard case .call(let descriptor) = start else { return start.result }
        let failure = POSIX.sendAll(descriptor, buffer, length)
        return finish {
            guard let failure else { return length }
            if lockedStatus == .open {
                lockedStatus = .error
                lockedError = connection.isShutLocked ? .closed : .io(POSIX.describe("send", errno: failure.code))
            } else if lockedError == nil {
                lockedError = .closed
            }
            return -1
        }
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The non-blocking pipe by which any thread ends a readiness selector's wait: the selector
/// watches `readEnd`, `wake()` writes a byte, and the selector drains it when it sees it ready.
/// What the epoll and kqueue selectors share.
struct WakePipe {
    /// The end the selector watches.
    let readEnd: Int32
    /// The end `wake()` writes to.
    let writeEnd: Int32

    /// Makes the pipe. On failure closes `owner` (the selector's own descriptor, made before the
    /// pipe) and throws, so that a selector that fails to start leaves no descriptor open.
    init(closingOnFailure owner: Int32) throws(TransportError) {
        switch POSIX.makePipe() {
        case .success(let ends):
            (readEnd, writeEnd) = ends
        case .failure(let failure):
            POSIX.closeDescriptor(owner)
            throw .io(POSIX.describe("pipe", errno: failure.code))
        }
    }

    /// Reads every byte written so far, so that the read end is no longer ready.
    func drain() {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &sink, sink.count) > 0 {}
    }

    /// Makes the read end ready; callable from any thread (a full pipe is already ready).
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Closes both ends.
    func close() {
        POSIX.closeDescriptor(readEnd)
        POSIX.closeDescriptor(writeEnd)
    }
}

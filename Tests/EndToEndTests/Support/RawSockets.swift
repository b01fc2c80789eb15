import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A process-local stand-in for a hung node: it listens on `DIR/control.sock`, accepts every
/// connection, and never answers, until `stop()`.
final class SilentControlSocket: Sendable {
    private let fd: Int32
    /// The connections accepted, held open without a word.
    private final class Accepted: Sendable {
        let descriptors = Mutex<[Int32]>([])
    }
    private let accepted = Accepted()
    private let done = DispatchSemaphore(value: 0)

    init(path: String) throws {
        #if canImport(Darwin)
        fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #else
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let descriptor = fd
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw CocoaError(.fileWriteUnknown) }
        let accepted = self.accepted, done = self.done
        Thread.detachNewThread {
            while true {
                let connection = accept(descriptor, nil, nil)
                if connection < 0 { break }
                accepted.descriptors.withLock { $0.append(connection) }
            }
            done.signal()
        }
    }

    /// Stops accepting and closes every connection.
    func stop() {
        #if canImport(Darwin)
        _ = Darwin.shutdown(fd, SHUT_RDWR)
        #else
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
        #endif
        _ = done.wait(timeout: .now() + 5)
        close(fd)
        for connection in accepted.descriptors.withLock({ $0 }) { close(connection) }
    }
}

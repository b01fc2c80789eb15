import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Raw Unix domain sockets for tests: a socket file with nobody behind it (as a killed node
/// leaves), or a listener that accepts and never answers (a hung node).
enum UnixSocketFixture {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A stream socket bound to `path`, or an error.
    private static func bound(path: String) throws -> Int32 {
        #if canImport(Darwin)
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(description: "path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "bind: errno \(errno)")
        }
        return fd
    }

    /// Leaves a socket file at `path` that nobody listens on.
    static func bindOnly(path: String) throws {
        close(try bound(path: path))
    }
}

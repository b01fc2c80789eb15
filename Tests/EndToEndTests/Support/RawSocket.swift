import Foundation
import GalleryIO
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

#if canImport(Darwin)
private let systemClose = Darwin.close
private let systemSend = Darwin.send
#else
private let systemClose = Glibc.close
private let systemSend = Glibc.send
#endif

/// A TCP connection opened by hand from a chosen loopback source address (127.0.0.2, ...), so
/// that a test can play many remote addresses; held until `close()`.
final class RawSocket: @unchecked Sendable {
    // `@unchecked Sendable`: the descriptor is written once; used by one test thread at a time.
    let descriptor: Int32

    /// Connects (non-blocking: the handshake completes in the background) from `source` to an
    /// IPv4 `endpoint`; nil when no socket could be made.
    init?(to endpoint: Endpoint, from source: String = "127.0.0.1") {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { return nil }
        descriptor = fd
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = endpoint.port.bigEndian
        inet_pton(AF_INET, endpoint.host, &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            _ = systemClose(fd)
            return nil
        }
        _ = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    deinit {
        close()
    }

    private var closed = false

    /// Closes the connection (once).
    func close() {
        guard !closed else { return }
        closed = true
        _ = systemClose(descriptor)
    }

    /// Writes bytes without blocking; false when the connection is gone.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) == $0.count }
    }

    /// Whether the node has closed the connection (end of stream or reset), reading and dropping
    /// whatever it sent; waits at most `timeout` seconds for that.
    func isClosedByPeer(within timeout: TimeInterval = 0) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 { return true }
            if count < 0 {
                let code = errno
                if code != EAGAIN && code != EWOULDBLOCK && code != EINPROGRESS && code != ENOTCONN { return true }
            }
            if count > 0 { received += buffer[..<count] }
            if Date() >= deadline { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, Int32(max(1, min(100, deadline.timeIntervalSinceNow * 1000))))
        }
    }

    /// Bytes the node sent so far (as read by `isClosedByPeer`).
    private(set) var received: [UInt8] = []
}

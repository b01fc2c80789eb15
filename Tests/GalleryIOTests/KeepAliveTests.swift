import Foundation
@testable import GalleryIO
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Testing

/// TCP keep-alive on peer sockets (protocol.md, section 10, "Quiet liveness"): the kernel finds a
/// vanished host while the process sends nothing.
@Suite("TCP keep-alive")
struct KeepAliveTests {
    /// An integer socket option as the kernel reports it.
    private func option(_ fd: Int32, _ level: Int32, _ name: Int32) -> Int32 {
        var value: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, level, name, &value, &length)
        return value
    }

    @Test("setKeepAlive turns keep-alive on with 10 s idle, 5 s between probes, 3 probes, 30 s unacknowledged")
    func keepAliveOptions() throws {
        guard case .success(let fd) = POSIX.makeSocket(family: AF_INET) else {
            Issue.record("no socket")
            return
        }
        defer { close(fd) }
        #expect(option(fd, SOL_SOCKET, SO_KEEPALIVE) == 0)
        POSIX.setKeepAlive(fd)
        #expect(option(fd, SOL_SOCKET, SO_KEEPALIVE) == 1)
        #if os(Linux)
        let tcp = Int32(IPPROTO_TCP)
        #expect(option(fd, tcp, TCP_KEEPIDLE) == 10)
        #expect(option(fd, tcp, TCP_KEEPINTVL) == 5)
        #expect(option(fd, tcp, TCP_KEEPCNT) == 3)
        #expect(option(fd, tcp, 18 /* TCP_USER_TIMEOUT */) == 30_000)
        #endif
    }
}

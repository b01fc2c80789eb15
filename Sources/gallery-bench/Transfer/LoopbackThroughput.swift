import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// This machine's plain TCP throughput over 127.0.0.1: one connection, a writer thread sending
/// `byteCount` bytes in writes of `chunkByteCount`, the calling thread reading them into a buffer
/// of the same size. No framing, no copies beyond the kernel's: the ceiling for any transfer.
enum LoopbackThroughput {
    /// Sends `byteCount` bytes through a loopback TCP connection and returns the seconds from the
    /// first write to the last byte read.
    static func measure(byteCount: Int, chunkByteCount: Int) throws -> Double {
        _ = signal(SIGPIPE, SIG_IGN)
        let listener = try makeSocket()
        defer { _ = close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else { throw failure("bind/listen on 127.0.0.1") }

        let sender = try makeSocket()
        defer { _ = close(sender) }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(sender, $0, length) == 0 }
        }
        guard connected else { throw failure("connect to 127.0.0.1") }
        let receiver = accept(listener, nil, nil)
        guard receiver >= 0 else { throw failure("accept") }
        defer { _ = close(receiver) }

        let done = DispatchSemaphore(value: 0)
        let start = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkByteCount, alignment: 16)
            defer { buffer.deallocate() }
            // Not zero pages: the same bytes a transfer would send.
            for index in 0..<chunkByteCount { buffer[index] = UInt8(truncatingIfNeeded: index &* 31) }
            start.wait()
            var sent = 0
            while sent < byteCount {
                let wanted = min(chunkByteCount - sent % chunkByteCount, byteCount - sent)
                let count = send(sender, buffer.baseAddress! + sent % chunkByteCount, wanted, sendFlags)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                sent += count
            }
            done.signal()
        }

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkByteCount, alignment: 16)
        defer { buffer.deallocate() }
        let clock = ContinuousClock()
        let begin = clock.now
        start.signal()
        var received = 0
        while received < byteCount {
            let count = recv(receiver, buffer.baseAddress!, chunkByteCount, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            received += count
        }
        let seconds = Stopwatch.seconds(begin.duration(to: clock.now))
        done.wait()
        guard received == byteCount else {
            throw BenchFailure.failed("loopback: received \(received) of \(byteCount) bytes")
        }
        return seconds
    }

    #if canImport(Darwin)
    private static let sendFlags: Int32 = 0
    #else
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    private static func makeSocket() throws -> Int32 {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw failure("socket") }
        return fd
    }

    private static func failure(_ what: String) -> BenchFailure {
        BenchFailure.failed("loopback: \(what) failed: \(String(cString: strerror(errno)))")
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Thin wrappers over the socket system calls, hiding Glibc/Darwin spelling differences.
package enum POSIX {
    /// `SIGPIPE` ignored for the whole process; evaluated once, before the first socket is made.
    package static let ignoreSIGPIPE: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    /// `SOCK_STREAM`, close-on-exec where the platform can say so atomically.
    #if canImport(Darwin)
    static let streamSocketType: Int32 = SOCK_STREAM
    #else
    static let streamSocketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    #endif

    /// Plain `SOCK_STREAM`, as `getaddrinfo` hints want it.
    #if canImport(Darwin)
    static let plainStreamSocketType: Int32 = SOCK_STREAM
    #else
    static let plainStreamSocketType = Int32(SOCK_STREAM.rawValue)
    #endif

    /// Flags for `send`: never raise `SIGPIPE` (Darwin uses `SO_NOSIGPIPE` on the socket instead).
    #if canImport(Darwin)
    package static let sendFlags: Int32 = 0
    #else
    package static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// `errno` as "what: strerror (errno N)".
    package static func describe(_ what: String, errno code: Int32) -> String {
        "\(what): \(String(cString: strerror(code))) (errno \(code))"
    }

    /// Makes a TCP socket for `family`, or returns the `errno`.
    package static func makeSocket(family: Int32) -> Result<Int32, SocketErrno> {
        let fd = socket(family, streamSocketType, 0)
        guard fd >= 0 else { return .failure(SocketErrno(errno)) }
        #if canImport(Darwin)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return .success(fd)
    }

    /// Sets an integer socket option; returns `errno` on failure.
    @discardableResult
    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Int32 {
        var value = value
        return setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 ? 0 : errno
    }

    /// Turns Nagle's algorithm off: frames are small and latency matters.
    package static func setNoDelay(_ fd: Int32) {
        #if canImport(Darwin)
        setOption(fd, IPPROTO_TCP, TCP_NODELAY, 1)
        #else
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        #endif
    }

    /// Turns TCP keep-alive on: an idle connection whose host vanished (power, network) is found
    /// by the kernel, which probes after 10 s of quiet, every 5 s, and gives up after 3 missed
    /// probes (about 25 s); data left unacknowledged for 30 s ends the connection too (Linux's
    /// `TCP_USER_TIMEOUT`). The process pays nothing for it while the link is idle (protocol.md,
    /// section 10, "Quiet liveness").
    package static func setKeepAlive(_ fd: Int32) {
        setOption(fd, SOL_SOCKET, SO_KEEPALIVE, 1)
        #if os(Linux)
        let tcp = Int32(IPPROTO_TCP)
        setOption(fd, tcp, TCP_KEEPIDLE, 10)
        setOption(fd, tcp, TCP_KEEPINTVL, 5)
        setOption(fd, tcp, TCP_KEEPCNT, 3)
        setOption(fd, tcp, 18 /* TCP_USER_TIMEOUT */, 30_000)
        #elseif canImport(Darwin)
        setOption(fd, IPPROTO_TCP, TCP_KEEPALIVE, 10)
        setOption(fd, IPPROTO_TCP, TCP_KEEPINTVL, 5)
        setOption(fd, IPPROTO_TCP, TCP_KEEPCNT, 3)
        #endif
    }

    /// Switches `O_NONBLOCK` on or off; returns `errno` on failure.
    @discardableResult
    package static func setNonBlocking(_ fd: Int32, _ on: Bool) -> Int32 {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { return errno }
        let wanted = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        if wanted == flags { return 0 }
        return fcntl(fd, F_SETFL, wanted) == 0 ? 0 : errno
    }

    /// `shutdown(fd, SHUT_RDWR)`: wakes any thread blocked in `recv`/`send` on this socket.
    static func shutdownBoth(_ fd: Int32) {
        #if canImport(Darwin)
        _ = shutdown(fd, SHUT_RDWR)
        #else
        _ = shutdown(fd, Int32(SHUT_RDWR))
        #endif
    }

    /// `close(fd)`; never retried on `EINTR` (on Linux the descriptor is gone either way).
    package static func closeDescriptor(_ fd: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(fd)
        #else
        _ = Glibc.close(fd)
        #endif
    }

    /// `connect(2)` (named apart from the `connect` methods of this module).
    package static func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Darwin)
        return Darwin.connect(fd, address, length)
        #else
        return Glibc.connect(fd, address, length)
        #endif
    }

    /// `accept(2)` of a connection, close-on-exec and blocking, with its peer address.
    package static func systemAccept(_ fd: Int32) -> Result<(Int32, SocketAddress), SocketErrno> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let accepted = withUnsafeMutableBytes(of: &storage) { raw in
            let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr.self)
            #if canImport(Darwin)
            return Darwin.accept(fd, address, &length)
            #else
            return Glibc.accept(fd, address, &length)
            #endif
        }
        guard accepted >= 0 else { return .failure(SocketErrno(errno)) }
        // `accept4` (atomic SOCK_CLOEXEC) is not exported by the Glibc module, hence fcntl.
        _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
        #if canImport(Darwin)
        // BSD sockets inherit O_NONBLOCK from the listener; Linux ones do not.
        setNonBlocking(accepted, false)
        setOption(accepted, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
        let peer = withUnsafeBytes(of: storage) { raw in
            SocketAddress(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length: length)
        }
        return .success((accepted, peer))
    }

    /// A pipe whose ends are non-blocking and close-on-exec, or the `errno`.
    package static func makePipe() -> Result<(read: Int32, write: Int32), SocketErrno> {
        // `pipe2` is not exported by the Glibc module, hence fcntl.
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return .failure(SocketErrno(errno)) }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            setNonBlocking(end, true)
        }
        return .success((ends[0], ends[1]))
    }

    /// `recv` retried on `EINTR`: >0 bytes, 0 at end of stream, or the `errno`.
    package static func receive(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Result<Int, SocketErrno> {
        while true {
            let n = recv(fd, buffer, count, 0)
            if n >= 0 { return .success(n) }
            let code = errno
            if code != EINTR { return .failure(SocketErrno(code)) }
        }
    }

    /// `send` looped until all `count` bytes are written, retried on `EINTR`; nil or the `errno`.
    package static func sendAll(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> SocketErrno? {
        var sent = 0
        while sent < count {
            let n = send(fd, buffer + sent, count - sent, sendFlags)
            if n >= 0 {
                sent += n
            } else {
                let code = errno
                if code != EINTR { return SocketErrno(code) }
            }
        }
        return nil
    }

    /// Milliseconds from now until `deadline`, rounded up, for `poll`; 0 once it has passed.
    package static func pollTimeout(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = deadline - .now
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        if seconds >= Int64(Int32.max / 1000) { return Int32.max }
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: millis)
    }
}

/// A captured `errno` value.
package struct SocketErrno: Error, Hashable {
    /// The raw `errno`.
    package var code: Int32
    package init(_ code: Int32) { self.code = code }
}

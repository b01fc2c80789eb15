import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Outbound connections.
package enum Connector {
    /// Connects to `endpoint`, trying every resolved address (IPv4 and IPv6) in order, all within `timeout`.
    package static func connect(to endpoint: Endpoint, timeout: Duration = .seconds(5)) throws(TransportError) -> StreamPair {
        _ = POSIX.ignoreSIGPIPE
        let deadline = ContinuousClock.now + timeout
        #if canImport(Darwin)
        return try connectWithFoundation(to: endpoint, deadline: deadline)
        #else
        let addresses = try SocketAddress.resolve(endpoint, passive: false)
        return try connect(toAny: addresses, label: endpoint.description, deadline: deadline)
        #endif
    }

    /// Tries `addresses` in order until one accepts; fails with every reason once all have failed.
    static func connect(
        toAny addresses: [SocketAddress], label: String, deadline: ContinuousClock.Instant
    ) throws(TransportError) -> StreamPair {
        _ = POSIX.ignoreSIGPIPE
        var reasons: [String] = []
        for address in addresses {
            switch connectOne(address, deadline: deadline) {
            case .success(let fd):
                return StreamPair(socket: fd, remote: address.text)
            case .failure(let reason):
                reasons.append("\(address.text): \(reason.message)")
            }
        }
        throw .connect(label, reasons.isEmpty ? "no addresses" : reasons.joined(separator: "; "))
    }

    /// Why one address failed.
    package struct Failure: Error {
        /// "call: strerror (errno N)".
        package var message: String
    }

    /// A non-blocking connect bounded by `deadline`, then back to blocking with `TCP_NODELAY` set.
    static func connectOne(_ address: SocketAddress, deadline: ContinuousClock.Instant) -> Result<Int32, Failure> {
        let fd: Int32
        switch POSIX.makeSocket(family: address.family) {
        case .success(let made): fd = made
        case .failure(let failure): return .failure(Failure(message: POSIX.describe("socket", errno: failure.code)))
        }
        func fail(_ what: String, _ code: Int32) -> Result<Int32, Failure> {
            POSIX.closeDescriptor(fd)
            return .failure(Failure(message: POSIX.describe(what, errno: code)))
        }
        var code = POSIX.setNonBlocking(fd, true)
        if code != 0 { return fail("fcntl", code) }

        let status = address.withSockaddr { POSIX.systemConnect(fd, $0, $1) }
        if status != 0 {
            code = errno
            guard code == EINPROGRESS || code == EINTR else { return fail("connect", code) }
            // Wait for the handshake, then read its outcome from SO_ERROR.
            while true {
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let timeout = POSIX.pollTimeout(until: deadline)
                if timeout == 0 { return fail("connect", ETIMEDOUT) }
                let ready = poll(&entry, 1, timeout)
                if ready < 0 {
                    code = errno
                    if code == EINTR { continue }
                    return fail("poll", code)
                }
                if ready == 0 { continue }  // Re-check the deadline.
                var socketError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length) != 0 {
                    return fail("getsockopt", errno)
                }
                if socketError != 0 { return fail("connect", socketError) }
                break
            }
        }
        code = POSIX.setNonBlocking(fd, false)
        if code != 0 { return fail("fcntl", code) }
        POSIX.setNoDelay(fd)
        return .success(fd)
    }

    #if canImport(Darwin)
    /// Darwin: `Stream.getStreamsToHost`, opened and waited on until `deadline`.
    ///
    /// Not exercised by the Linux test suite. Unscheduled CFSocketStreams open on their own, so
    /// the status is polled rather than waited for on a run loop.
    static func connectWithFoundation(to endpoint: Endpoint, deadline: ContinuousClock.Instant) throws(TransportError) -> StreamPair {
        guard Endpoint.isPlausibleHost(endpoint.host) else { throw .invalidEndpoint(endpoint.description) }
        var input: InputStream?
        var output: OutputStream?
        Stream.getStreamsToHost(withName: endpoint.host, port: Int(endpoint.port), inputStream: &input, outputStream: &output)
        guard let input, let output else { throw .connect(endpoint.description, "getStreamsToHost returned no streams") }
        input.open()
        output.open()
        while true {
            let statuses = (input.streamStatus, output.streamStatus)
            if statuses.0 == .open && statuses.1 == .open { break }
            if statuses.0 == .error || statuses.1 == .error {
                let reason = (input.streamError ?? output.streamError).map { "\($0.localizedDescription)" } ?? "failed"
                input.close()
                output.close()
                throw .connect(endpoint.description, reason)
            }
            if ContinuousClock.now >= deadline {
                input.close()
                output.close()
                throw .connect(endpoint.description, POSIX.describe("connect", errno: ETIMEDOUT))
            }
            usleep(200)
        }
        var remote = endpoint.description
        let key = Stream.PropertyKey(kCFStreamPropertySocketNativeHandle as String)
        if let handle = input.property(forKey: key) as? Data, handle.count >= MemoryLayout<Int32>.size {
            let fd = handle.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
            POSIX.setNoDelay(fd)
            POSIX.setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
            if let peer = SocketAddress.peer(of: fd) { remote = peer.text }
        }
        return StreamPair(input: input, output: output, remote: remote)
    }
    #endif
}

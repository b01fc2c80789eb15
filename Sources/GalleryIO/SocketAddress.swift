#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// One resolved socket address (IPv4 or IPv6), as `getaddrinfo` or `accept` produced it.
package struct SocketAddress: Sendable {
    /// The raw address; only the first `length` bytes are meaningful.
    package var storage: sockaddr_storage
    /// The length of the address in `storage`.
    package var length: socklen_t

    /// `AF_INET` or `AF_INET6`.
    package var family: Int32 { Int32(storage.ss_family) }

    /// Copies an address of `length` bytes.
    package init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        var storage = sockaddr_storage()
        let size = min(Int(length), MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: size))
        }
        self.storage = storage
        self.length = socklen_t(size)
    }

    /// Calls `body` with the address as the `sockaddr` pointer the socket calls take.
    package func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafeBytes(of: storage) { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }

    /// The numeric host ("127.0.0.1", "::1") and port.
    package var numeric: (host: String, port: UInt16) {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: 32)
        let status = withSockaddr { address, length in
            getnameinfo(address, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                        NI_NUMERICHOST | NI_NUMERICSERV)
        }
        guard status == 0 else { return ("?", 0) }
        var hostText = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // An IPv4 peer seen through a dual-stack IPv6 socket: report the plain IPv4 address.
        if hostText.hasPrefix("::ffff:") && hostText.contains(".") {
            hostText.removeFirst("::ffff:".count)
        }
        let serviceText = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (hostText, UInt16(serviceText) ?? 0)
    }

    /// The address as an `Endpoint` with a numeric host.
    package var endpoint: Endpoint {
        let (host, port) = numeric
        return Endpoint(host: host, port: port)
    }

    /// "ip:port", or "[ip]:port" for IPv6.
    package var text: String { endpoint.description }

    /// The local address a socket is bound to.
    package static func local(of fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutableBytes(of: &storage) { raw in
            getsockname(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        guard status == 0 else { return nil }
        return withUnsafeBytes(of: storage) { raw in
            SocketAddress(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length: length)
        }
    }

    /// The peer address of a connected socket.
    package static func peer(of fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutableBytes(of: &storage) { raw in
            getpeername(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        guard status == 0 else { return nil }
        return withUnsafeBytes(of: storage) { raw in
            SocketAddress(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length: length)
        }
    }

    /// All TCP addresses of `endpoint` (IPv4 and IPv6, in resolver order, duplicates dropped).
    /// `passive` asks for addresses to bind rather than to connect to.
    package static func resolve(_ endpoint: Endpoint, passive: Bool) throws(TransportError) -> [SocketAddress] {
        guard Endpoint.isPlausibleHost(endpoint.host) else {
            throw .invalidEndpoint(endpoint.description)
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = POSIX.plainStreamSocketType
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0 else {
            let reason = status == EAI_SYSTEM
                ? POSIX.describe("getaddrinfo", errno: errno)
                : "getaddrinfo: \(String(cString: gai_strerror(status)))"
            throw .resolve(endpoint.host, reason)
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var seen: Set<[UInt8]> = []
        var cursor = list
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            let family = entry.pointee.ai_family
            guard family == AF_INET || family == AF_INET6, let raw = entry.pointee.ai_addr else { continue }
            let address = SocketAddress(raw, length: entry.pointee.ai_addrlen)
            let key = withUnsafeBytes(of: address.storage) { Array($0.prefix(Int(address.length))) }
            if seen.insert(key).inserted { addresses.append(address) }
        }
        if addresses.isEmpty {
            throw .resolve(endpoint.host, "no IPv4 or IPv6 address")
        }
        return addresses
    }
}

import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// One `GET /blobs/HASH` from a node's web port on a plain socket, read to its last byte into a
/// reused 256 KiB buffer (what a browser's network stack does, without parsing costs of its own).
enum BlobDownload {
    /// Fetches `/blobs/HASH` from `127.0.0.1:port` with the session cookie `token`; returns the
    /// seconds from the request's first byte to the body's last, and the body's length.
    static func measure(port: UInt16, token: String, hash: String) throws -> (seconds: Double, bytes: Int) {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw BenchFailure.failed("web: socket failed") }
        defer { _ = close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw BenchFailure.failed("web: cannot connect to 127.0.0.1:\(port)") }
        let request = Array("GET /blobs/\(hash) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: gallery_session=\(token)\r\nConnection: close\r\n\r\n".utf8)
        let clock = ContinuousClock()
        let begin = clock.now
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw BenchFailure.failed("web: cannot send the request")
        }
        let size = 256 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var head: [UInt8] = []
        var body = 0
        var expected: Int?
        while expected.map({ body < $0 }) ?? true {
            let count = recv(fd, buffer.baseAddress!, size, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            if expected == nil {
                head += UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                guard let end = head.indices.dropLast(3).first(where: { head[$0] == 13 && head[$0 + 1] == 10 && head[$0 + 2] == 13 && head[$0 + 3] == 10 }) else { continue }
                let text = String(decoding: head[..<end], as: UTF8.self)
                guard text.hasPrefix("HTTP/1.1 200") else { throw BenchFailure.failed("web: GET /blobs answered \(text.prefix(80))") }
                let length = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                expected = length.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
                guard expected != nil else { throw BenchFailure.failed("web: GET /blobs has no Content-Length") }
                body = head.count - end - 4
                head = []
            } else {
                body += count
            }
        }
        let seconds = Stopwatch.seconds(begin.duration(to: clock.now))
        guard let expected, body == expected else { throw BenchFailure.failed("web: GET /blobs ended after \(body) bytes") }
        return (seconds, body)
    }
}

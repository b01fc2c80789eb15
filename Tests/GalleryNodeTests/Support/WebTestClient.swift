import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A plain TCP client for the web server's tests: blocking reads with a timeout, responses parsed
/// by their `Content-Length`, so that a test sees exactly what the server wrote and when.
final class WebTestClient {
    /// One parsed response.
    struct Response {
        var status: Int
        var head: String
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    enum Failure: Error, LocalizedError {
        case connect(Int32)
        case closed
        case timeout
        case malformed(String)

        var errorDescription: String? {
            switch self {
            case .connect(let code): "connect failed: errno \(code)"
            case .closed: "the server closed the connection"
            case .timeout: "no answer in time"
            case .malformed(let text): "not a response: \(text.prefix(200))"
            }
        }
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var isClosed = false

    /// Connects to 127.0.0.1:`port`; reads give up after `timeout` seconds; `receiveBuffer` (bytes)
    /// shrinks the socket's receive buffer, for a reader meant to fall behind.
    init(port: UInt16, timeout: Double = 5, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.connect(errno) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw Failure.connect(code)
        }
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    /// Writes all of `text`.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Reads once more into the buffer.
    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count == 0 { throw Failure.closed }
        if count < 0 { throw errno == EAGAIN || errno == EWOULDBLOCK ? Failure.timeout : Failure.closed }
        buffer += chunk[..<count]
    }

    /// The next response's head (up to the empty line).
    func readHead() throws -> (status: Int, head: String) {
        while true {
            if let end = buffer.indices.dropLast(3).first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                let parts = head.split(separator: " ", maxSplits: 2)
                guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure.malformed(head) }
                return (status, head)
            }
            try fill()
        }
    }

    /// The next whole response (its body by `Content-Length`).
    func readResponse() throws -> Response {
        let (status, head) = try readHead()
        let length = head.split(separator: "\r\n").compactMap { line -> Int? in
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2, pair[0].lowercased() == "content-length" else { return nil }
            return Int(pair[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while buffer.count < length { try fill() }
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return Response(status: status, head: head, body: body)
    }

    /// Reads until `marker` has arrived (event streams); what came is dropped up to its end.
    func read(until marker: String) throws {
        let wanted = Array(marker.utf8)
        while true {
            if let start = buffer.indices.first(where: { buffer[$0...].starts(with: wanted) }) {
                buffer.removeFirst(start + wanted.count)
                return
            }
            try fill()
        }
    }

    /// True when the server closed the connection within the read timeout (bytes before the
    /// close are dropped).
    func closedByServer() -> Bool {
        while true {
            do {
                try fill()
                buffer.removeAll()
            } catch Failure.closed {
                return true
            } catch {
                return false
            }
        }
    }
}

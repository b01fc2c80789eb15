import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The least HTTP/1.1 client that Syncthing's REST API on 127.0.0.1 needs: one request per
/// connection (`Connection: close`), the API key in `X-API-Key`, the answer read to the end and
/// its body de-chunked. Only the benchmark uses it, only towards the loopback address.
struct SyncthingHTTP {
    /// The port of the API (the GUI address, 127.0.0.1).
    var port: UInt16
    /// The API key written into the instance's config.xml.
    var apiKey: String

    /// An answer: its status code and body.
    struct Response {
        var status: Int
        var body: [UInt8]

        /// The body parsed as JSON.
        func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
        }
    }

    /// Sends `METHOD PATH` (with a JSON body when given) and returns the answer; throws when the
    /// connection fails or the answer cannot be read within `timeout` seconds.
    func request(_ method: String, _ path: String, json body: Any? = nil, timeout: Int = 120) throws -> Response {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-API-Key: \(apiKey)\r\nConnection: close\r\n"
        if body != nil { head += "Content-Type: application/json\r\n" }
        head += "Content-Length: \(payload.count)\r\n\r\n"
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchFailure.failed("syncthing: socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw BenchFailure.failed("syncthing: cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
        let bytes = Array(head.utf8) + Array(payload)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw BenchFailure.failed("syncthing: send to 127.0.0.1:\(port) failed") }
            sent += count
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { throw BenchFailure.failed("syncthing: \(method) \(path): no answer in \(timeout) s") }
            answer += buffer[0..<count]
        }
        return try Self.parse(answer)
    }

    /// Sends the request and returns the body as JSON; throws unless the status is 200.
    func json(_ method: String, _ path: String, json body: Any? = nil, timeout: Int = 120) throws -> Any {
        let response = try request(method, path, json: body, timeout: timeout)
        guard response.status == 200 else {
            throw BenchFailure.failed("syncthing: \(method) \(path) answered \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
        }
        return response.body.isEmpty ? [String: Any]() : try response.json()
    }

    /// Sends the request; throws unless the status is 200.
    func expectOK(_ method: String, _ path: String, json body: Any? = nil, timeout: Int = 120) throws {
        _ = try json(method, path, json: body, timeout: timeout)
    }

    /// Parses a whole HTTP/1.1 response: status line, headers, then a body delimited by the end of
    /// the connection, `Content-Length` or chunked transfer coding.
    static func parse(_ bytes: [UInt8]) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = bytes.firstRange(of: separator) else { throw BenchFailure.failed("syncthing: an answer without a complete head") }
        let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let statusFields = lines[0].split(separator: " ")
        guard statusFields.count >= 2, statusFields[0].hasPrefix("HTTP/1."), let status = Int(statusFields[1]) else {
            throw BenchFailure.failed("syncthing: bad status line \"\(lines[0])\"")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[headEnd.upperBound...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body)
        } else if let length = headers["content-length"].flatMap(Int.init) {
            guard body.count >= length else { throw BenchFailure.failed("syncthing: a body shorter than its Content-Length") }
            body = Array(body.prefix(length))
        }
        return Response(status: status, body: body)
    }

    /// The body of a chunked transfer coding: `SIZE-IN-HEX[;ext]\r\nDATA\r\n` ... `0\r\n\r\n`.
    static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = bytes[index...].firstRange(of: [13, 10]) else { throw BenchFailure.failed("syncthing: a chunk size without its line end") }
            let sizeText = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw BenchFailure.failed("syncthing: a bad chunk size \"\(sizeText)\"")
            }
            if size == 0 { return body }
            let start = lineEnd.upperBound
            guard start + size + 2 <= bytes.count else { throw BenchFailure.failed("syncthing: a chunk cut short") }
            body += bytes[start..<start + size]
            index = start + size + 2
        }
    }
}

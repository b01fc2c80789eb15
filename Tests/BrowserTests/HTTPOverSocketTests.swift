import Foundation
import GalleryHTTP
import GalleryIO
import Testing

/// The codec behind a real socket (the browser tests' server, on GalleryNode's Listener): keep-alive,
/// HTTP/1.0 close, and refusals that answer and then close the connection. No browser needed.
@Suite("HTTP over a socket")
struct HTTPOverSocketTests {
    /// One response read from a connection: status line, headers, body.
    struct Response {
        var statusLine: String
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    @Test("Two requests on one keep-alive connection are both answered, in order")
    func keepAlive() throws {
        let server = try TestWebServer()
        defer { server.stop() }
        let connection = try Connector.connect(to: Endpoint(host: "127.0.0.1", port: server.port))
        defer { connection.close() }
        var pending: [UInt8] = []
        let requests = "GET /app.css HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /missing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        #expect(connection.output.writeAll(Array(requests.utf8)))
        let first = try #require(Self.readResponse(connection, &pending))
        #expect(first.statusLine == "HTTP/1.1 200 OK")
        #expect(first.headers["content-type"] == "text/css; charset=utf-8")
        #expect(first.headers["content-security-policy"]?.contains("script-src 'self'") == true)
        #expect(first.headers["connection"] == nil)
        #expect(String(decoding: first.body, as: UTF8.self) == TestPageAssets.style)
        let second = try #require(Self.readResponse(connection, &pending))
        #expect(second.statusLine == "HTTP/1.1 404 Not Found")
    }

    @Test("HTTP/1.0 without keep-alive gets Connection: close and the server closes")
    func http10Closes() throws {
        let (response, closed) = try Self.exchange(Array("GET /app.css HTTP/1.0\r\n\r\n".utf8))
        #expect(response?.statusLine == "HTTP/1.1 200 OK")
        #expect(response?.headers["connection"] == "close")
        #expect(closed)
    }

    @Test("Smuggling-shaped and oversized requests get their status and a closed connection",
          arguments: [
            ("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            ("POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501),
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "x", count: 17_000) + "\r\n\r\n", 431),
            ("GET / HTTP/1.1\nHost: h\n\n", 400),
          ])
    func refusals(request: String, status: Int) throws {
        let (response, closed) = try Self.exchange(Array(request.utf8))
        #expect(response?.statusLine.hasPrefix("HTTP/1.1 \(status) ") == true, "\(String(describing: response?.statusLine))")
        #expect(response?.headers["connection"] == "close")
        #expect(closed, "the connection must close after a refusal")
    }

    /// Sends `bytes` on a new connection; returns the first response and whether the server then closed.
    static func exchange(_ bytes: [UInt8]) throws -> (Response?, Bool) {
        let server = try TestWebServer()
        defer { server.stop() }
        let connection = try Connector.connect(to: Endpoint(host: "127.0.0.1", port: server.port))
        defer { connection.close() }
        connection.output.writeAll(bytes)
        var pending: [UInt8] = []
        let response = readResponse(connection, &pending)
        var byte: UInt8 = 0
        let closed = pending.isEmpty && connection.input.read(&byte, maxLength: 1) <= 0
        return (response, closed)
    }

    /// Reads one response with a Content-Length body; nil when the connection ends first.
    static func readResponse(_ connection: StreamPair, _ pending: inout [UInt8]) -> Response? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        func fill() -> Bool {
            let count = connection.input.read(&buffer, maxLength: buffer.count)
            if count <= 0 { return false }
            pending += buffer[0..<count]
            return true
        }
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            headEnd = pending.indices.first { pending[$0...].starts(with: separator) }
            if headEnd == nil && !fill() { return nil }
        }
        guard let end = headEnd else { return nil }
        let lines = String(decoding: pending[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        pending.removeSubrange(..<(end + 4))
        while pending.count < length { if !fill() { return nil } }
        let body = Array(pending[..<length])
        pending.removeSubrange(..<length)
        return Response(statusLine: lines[0], headers: headers, body: body)
    }
}

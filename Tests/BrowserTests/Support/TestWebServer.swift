import Foundation
import GalleryHTTP
import GalleryIO
import GalleryTestSupport

/// A tiny HTTP/1.1 server for browser tests: GalleryNode's `Listener` for sockets, GalleryHTTP's codec
/// for bytes, one thread per connection. It serves `TestPageAssets`, stores uploads, and pushes
/// Server-Sent Events to every page listening on `/events`.
///
/// `@unchecked Sendable`: mutable state is guarded by `condition`.
final class TestWebServer: @unchecked Sendable {
    /// One body received on `POST /upload`.
    struct Upload: Sendable {
        /// The `name` query item.
        var name: String
        /// The bytes.
        var bytes: [UInt8]
    }

    /// The bound port on 127.0.0.1.
    let port: UInt16
    private let listener: Listener
    private let condition = NSCondition()
    private var connections: [StreamPair] = []
    private var eventStreams: [StreamPair] = []
    private var uploadsReceived: [Upload] = []
    private var refusals: [Int] = []

    /// Listens on 127.0.0.1 with an ephemeral port and starts accepting.
    init() throws {
        listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        port = listener.endpoint.port
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "TestWebServer accept"
        thread.start()
    }

    /// "http://127.0.0.1:PORT".
    var origin: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting and closes every connection.
    func stop() {
        listener.close()
        condition.withLock {
            connections.forEach { $0.close() }
            connections.removeAll()
            eventStreams.removeAll()
        }
    }

    /// The uploads so far.
    var uploads: [Upload] { condition.withLock { uploadsReceived } }

    /// Statuses of requests refused by the codec.
    var refusedStatuses: [Int] { condition.withLock { refusals } }

    /// Blocks until `count` event streams are open, at most `timeout`; returns whether they are.
    func waitForEventStreams(_ count: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while eventStreams.count < count { if !condition.wait(until: deadline) { return false } }
        return true
    }

    /// Writes `event` to every open event stream; returns how many got it.
    @discardableResult
    func push(_ event: ServerSentEvent) -> Int {
        let streams = condition.withLock { eventStreams }
        return streams.filter { Self.writeAll($0.output, event.encoded()) }.count
    }

    private func acceptLoop() {
        while let pair = try? listener.accept() {
            condition.withLock { connections.append(pair) }
            let thread = Thread { [self] in serve(pair) }
            thread.name = "TestWebServer connection"
            thread.start()
        }
    }

    /// Reads requests until the client closes, a response closes, or the codec refuses.
    private func serve(_ pair: StreamPair) {
        defer {
            pair.close()
            condition.withLock {
                eventStreams.removeAll { $0.input === pair.input }
                connections.removeAll { $0.input === pair.input }
            }
        }
        var parser = HTTPRequestParser()
        var head: HTTPRequestHead?
        var body = HTTPBodyCollector?.none
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = pair.input.read(&buffer, maxLength: buffer.count)
            if count <= 0 { return }
            parser.receive(buffer[0..<count])
            do {
                while let event = try parser.next() {
                    switch event {
                    case .head(let received):
                        head = received
                        let limit = received.path == "/upload" ? 64 << 20 : HTTPLimits.maxBufferedBodyBytes
                        body = try HTTPBodyCollector(head: received, limit: limit)
                        if received.expectsContinue { _ = Self.writeAll(pair.output, HTTPResponseHead.continueBytes) }
                    case .body(let chunk):
                        body?.append(chunk)
                    case .end:
                        guard let request = head else { return }
                        if !respond(to: request, body: body?.bytes ?? [], on: pair) { return }
                    }
                }
            } catch {
                condition.withLock { refusals.append(error.status.code) }
                _ = Self.writeAll(pair.output, HTTPResponseHead.refusal(error))
                return
            }
        }
    }

    /// Answers one request; false when the connection must close (or became an event stream that ended).
    private func respond(to request: HTTPRequestHead, body: [UInt8], on pair: StreamPair) -> Bool {
        let keepAlive = request.keepAlive
        func send(_ status: HTTPStatus, _ type: String, _ bytes: [UInt8]) -> Bool {
            var headers = TestPageAssets.securityHeaders
            headers.add("Cache-Control", "no-store")
            let response = HTTPResponseHead.complete(status: status, contentType: type, body: bytes, headers: headers,
                                                     request: request, keepAlive: keepAlive)
            return Self.writeAll(pair.output, response) && keepAlive
        }
        switch (request.method, String(request.path)) {
        case ("GET", "/"), ("GET", "/index.html"):
            return send(.ok, "text/html; charset=utf-8", Array(TestPageAssets.html.utf8))
        case ("GET", "/app.js"):
            return send(.ok, "text/javascript; charset=utf-8", Array(TestPageAssets.script.utf8))
        case ("GET", "/app.css"):
            return send(.ok, "text/css; charset=utf-8", Array(TestPageAssets.style.utf8))
        case ("POST", "/upload"):
            let name = HTTPQuery(request.query)["name"] ?? ""
            condition.withLock {
                uploadsReceived.append(Upload(name: name, bytes: body))
                condition.broadcast()
            }
            let json = "{\"name\":\(BrowserPage.jsString(name)),\"size\":\(body.count)}"
            return send(.created, "application/json", Array(json.utf8))
        case ("GET", "/events"):
            var head = HTTPResponseHead(status: .ok, headers: ServerSentEvent.streamHeaders)
            head.headers.add("X-Content-Type-Options", "nosniff")
            guard Self.writeAll(pair.output, head.serialized() + ServerSentEvent.comment("open")) else { return false }
            condition.withLock {
                eventStreams.append(pair)
                condition.broadcast()
            }
            return true  // Keep reading: the stream ends when the page closes the connection.
        default:
            return send(.notFound, "text/plain; charset=utf-8", Array("not found\n".utf8))
        }
    }

    /// Writes every byte; false when the connection failed.
    static func writeAll(_ output: OutputStream, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBufferPointer {
                output.write($0.baseAddress!, maxLength: $0.count)
            }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }
}

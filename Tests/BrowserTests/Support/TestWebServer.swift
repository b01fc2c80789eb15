import Foundation
import GalleryHTTP
import GalleryIO
import GalleryTestSupport

/// A tiny HTTP/1.1 server for browser tests (sockets, threads and the codec are `HTTPTestServer`'s).
/// It serves `TestPageAssets`, stores uploads, and pushes Server-Sent Events to every page
/// listening on `/events`.
///
/// `@unchecked Sendable`: mutable state is guarded by `condition`.
final class TestWebServer: HTTPTestRoutes, @unchecked Sendable {
    /// One body received on `POST /upload`.
    struct Upload: Sendable {
        /// The `name` query item.
        var name: String
        /// The bytes.
        var bytes: [UInt8]
    }

    private let server: HTTPTestServer
    private let condition = NSCondition()
    private var eventStreams: [StreamPair] = []
    private var uploadsReceived: [Upload] = []
    private var refusals: [Int] = []

    /// Listens on 127.0.0.1 with an ephemeral port and starts accepting.
    init() throws {
        server = try HTTPTestServer(name: "TestWebServer")
        server.start(self)
    }

    /// The bound port on 127.0.0.1.
    var port: UInt16 { server.port }

    /// "http://127.0.0.1:PORT".
    var origin: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting and closes every connection.
    func stop() {
        server.stop()
        condition.withLock { eventStreams.removeAll() }
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
        return streams.filter { $0.output.writeAll(event.encoded()) }.count
    }

    func bodyLimit(for head: HTTPRequestHead) -> Int {
        head.path == "/upload" ? 64 << 20 : HTTPLimits.maxBufferedBodyBytes
    }

    func refused(_ error: HTTPRequestError) {
        condition.withLock { refusals.append(error.status.code) }
    }

    func closed(_ pair: StreamPair) {
        condition.withLock { eventStreams.removeAll { $0.input === pair.input } }
    }

    /// Answers one request; false when the connection must close (or became an event stream that ended).
    func respond(to request: HTTPRequestHead, body: [UInt8], on pair: StreamPair) -> Bool {
        let keepAlive = request.keepAlive
        func send(_ status: HTTPStatus, _ type: String, _ bytes: [UInt8]) -> Bool {
            var headers = TestPageAssets.securityHeaders
            headers.add("Cache-Control", "no-store")
            let response = HTTPResponseHead.complete(status: status, contentType: type, body: bytes, headers: headers,
                                                     request: request, keepAlive: keepAlive)
            return pair.output.writeAll(response) && keepAlive
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
            guard pair.output.writeAll(head.serialized() + ServerSentEvent.comment("open")) else { return false }
            condition.withLock {
                eventStreams.append(pair)
                condition.broadcast()
            }
            return true  // Keep reading: the stream ends when the page closes the connection.
        default:
            return send(.notFound, "text/plain; charset=utf-8", Array("not found\n".utf8))
        }
    }
}

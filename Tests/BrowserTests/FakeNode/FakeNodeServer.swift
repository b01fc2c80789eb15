import Foundation
import GalleryHTTP
import GalleryWeb
import GalleryIO
import Synchronization

/// `FakeNode` behind HTTP/1.1, as http-api.md describes the node's web adapter: the page from
/// `PageAssets`, the JSON API, `/blobs/HASH` and the event stream, with the token cookie, the Host and
/// Origin checks. Sockets, threads and the codec are `HTTPTestServer`'s. `stop()` then a new server
/// on the same `port` and node is a node restart.
final class FakeNodeServer: HTTPTestRoutes {
    /// The node served.
    let node: FakeNode
    private let server: HTTPTestServer
    /// When each upload's progress was last reported (every 50 ms at most), from `started` on.
    private let lastProgress = Mutex<[String: ContinuousClock.Instant]>([:])
    private let started = ContinuousClock.now

    /// Serves `node` on 127.0.0.1:`port` (0: ephemeral).
    init(node: FakeNode, port: UInt16 = 0) throws {
        self.node = node
        server = try HTTPTestServer(port: port, name: "FakeNodeServer")
        server.start(self)
    }

    /// The bound port on 127.0.0.1.
    var port: UInt16 { server.port }

    /// "http://127.0.0.1:PORT".
    var origin: String { "http://127.0.0.1:\(port)" }

    /// The URL `gallery open` would print.
    var pageURL: String { "\(origin)/?token=\(node.token)" }

    /// True once `stop()` ran.
    var isStopped: Bool { server.isStopped }

    /// Stops accepting and closes every connection (event streams too).
    func stop() {
        server.stop()
        node.condition.withLock { node.condition.broadcast() }
    }

    func bodyLimit(for head: HTTPRequestHead) -> Int {
        head.method == "PUT" && head.path.hasPrefix("/api/uploads/") ? 256 << 20 : HTTPLimits.maxBufferedBodyBytes
    }

    func receiving(_ head: HTTPRequestHead, received: Int) {
        guard head.method == "PUT" else { return }
        let upload = String(head.path.dropFirst("/api/uploads/".count))
        let now = ContinuousClock.now
        let due = lastProgress.withLock { last in
            guard now - (last[upload] ?? started) > .milliseconds(50) else { return false }
            last[upload] = now
            return true
        }
        if due { node.uploadProgress(upload, done: received) }
    }

    /// Answers one request; false when the connection must close (or became an event stream that ended).
    func respond(to request: HTTPRequestHead, body: [UInt8], on pair: StreamPair) -> Bool {
        let response = FakeNodeRoutes(node: node, origin: origin, port: port).response(to: request, body: body)
        switch response {
        case .complete(let bytes, let keepAlive):
            return pair.output.writeAll(bytes) && keepAlive
        case .eventStream(let after):
            streamEvents(after: after, to: pair)
            return false
        }
    }

    /// Writes the event stream: batches after `after`, then everything new, until the connection or
    /// the server ends. Runs on the connection's thread (the page sends nothing more on it).
    private func streamEvents(after: Int?, to pair: StreamPair) {
        var head = HTTPResponseHead(status: .ok, headers: ServerSentEvent.streamHeaders)
        for (name, value) in PageAssets.securityHeaders where name != "Cache-Control" { head.headers.add(name, value) }
        guard pair.output.writeAll(head.serialized() + Array("retry: 300\n\n".utf8)) else { return }
        let condition = node.condition
        condition.lock()
        let start = after ?? node.lastBatchID
        var pending = node.outbox.filter { ($0.id ?? 0) > start && $0.id != nil }
        var cursor = node.outbox.count
        condition.unlock()
        while !isStopped {
            for message in pending {
                let event = ServerSentEvent(id: message.id.map(String.init), event: message.event, data: message.data)
                guard pair.output.writeAll(event.encoded()) else { return }
            }
            condition.lock()
            while node.outbox.count == cursor, !isStopped {
                if !condition.wait(until: Date().addingTimeInterval(1)) { break }
            }
            pending = Array(node.outbox[cursor...])
            cursor = node.outbox.count
            condition.unlock()
            if pending.isEmpty, !pair.output.writeAll(ServerSentEvent.comment("keep-alive")) { return }
        }
    }
}

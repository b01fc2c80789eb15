import Foundation
import GalleryHTTP
import GalleryIO
import GalleryTestSupport

/// `FakeNode` behind HTTP/1.1, as http-api.md describes the node's web adapter: the page from
/// `PageAssets`, the JSON API, `/blobs/HASH` and the event stream, with the token cookie, the Host and
/// Origin checks. GalleryNode's `Listener` for sockets, GalleryHTTP's codec for bytes, one thread per
/// connection. `stop()` then a new server on the same `port` and node is a node restart.
///
/// `@unchecked Sendable`: mutable state is guarded by `lock`.
final class FakeNodeServer: @unchecked Sendable {
    /// The node served.
    let node: FakeNode
    /// The bound port on 127.0.0.1.
    let port: UInt16
    private let listener: Listener
    private let lock = NSLock()
    private var connections: [StreamPair] = []
    private var stopped = false

    /// Serves `node` on 127.0.0.1:`port` (0: ephemeral).
    init(node: FakeNode, port: UInt16 = 0) throws {
        self.node = node
        listener = try Listener(Endpoint(host: "127.0.0.1", port: port))
        self.port = listener.endpoint.port
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "FakeNodeServer accept"
        thread.start()
    }

    /// "http://127.0.0.1:PORT".
    var origin: String { "http://127.0.0.1:\(port)" }

    /// The URL `gallery open` would print.
    var pageURL: String { "\(origin)/?token=\(node.token)" }

    /// True once `stop()` ran.
    var isStopped: Bool { lock.withLock { stopped } }

    /// Stops accepting and closes every connection (event streams too).
    func stop() {
        listener.close()
        let open = lock.withLock {
            stopped = true
            defer { connections.removeAll() }
            return connections
        }
        open.forEach { $0.close() }
        node.condition.withLock { node.condition.broadcast() }
    }

    private func acceptLoop() {
        while let pair = try? listener.accept() {
            let accepted = lock.withLock { () -> Bool in
                if stopped { return false }
                connections.append(pair)
                return true
            }
            guard accepted else { pair.close(); return }
            let thread = Thread { [self] in serve(pair) }
            thread.name = "FakeNodeServer connection"
            thread.start()
        }
    }

    /// Reads requests until the client closes, a response closes, or the codec refuses.
    private func serve(_ pair: StreamPair) {
        defer {
            pair.close()
            lock.withLock { connections.removeAll { $0.input === pair.input } }
        }
        var parser = HTTPRequestParser()
        var head: HTTPRequestHead?
        var body: [UInt8] = []
        var lastProgress = ContinuousClock.now
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
                        body = []
                        let upload = received.method == "PUT" && received.path.hasPrefix("/api/uploads/")
                        _ = try HTTPBodyCollector(head: received, limit: upload ? 256 << 20 : HTTPLimits.maxBufferedBodyBytes)
                        if received.expectsContinue { _ = Self.writeAll(pair.output, HTTPResponseHead.continueBytes) }
                    case .body(let chunk):
                        body.append(contentsOf: chunk)
                        if let request = head, request.method == "PUT", ContinuousClock.now - lastProgress > .milliseconds(50) {
                            lastProgress = ContinuousClock.now
                            node.uploadProgress(String(request.path.dropFirst("/api/uploads/".count)), done: body.count)
                        }
                    case .end:
                        guard let request = head else { return }
                        if !respond(to: request, body: body, on: pair) { return }
                    }
                }
            } catch {
                _ = Self.writeAll(pair.output, HTTPResponseHead.refusal(error))
                return
            }
        }
    }

    /// Answers one request; false when the connection must close (or became an event stream that ended).
    private func respond(to request: HTTPRequestHead, body: [UInt8], on pair: StreamPair) -> Bool {
        let response = FakeNodeRoutes(node: node, origin: origin, port: port).response(to: request, body: body)
        switch response {
        case .complete(let bytes, let keepAlive):
            return Self.writeAll(pair.output, bytes) && keepAlive
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
        guard Self.writeAll(pair.output, head.serialized() + Array("retry: 300\n\n".utf8)) else { return }
        let condition = node.condition
        condition.lock()
        let start = after ?? node.lastBatchID
        var pending = node.outbox.filter { ($0.id ?? 0) > start && $0.id != nil }
        var cursor = node.outbox.count
        condition.unlock()
        while !isStopped {
            for message in pending {
                let event = ServerSentEvent(id: message.id.map(String.init), event: message.event, data: message.data)
                guard Self.writeAll(pair.output, event.encoded()) else { return }
            }
            condition.lock()
            while node.outbox.count == cursor, !isStopped {
                if !condition.wait(until: Date().addingTimeInterval(1)) { break }
            }
            pending = Array(node.outbox[cursor...])
            cursor = node.outbox.count
            condition.unlock()
            if pending.isEmpty, !Self.writeAll(pair.output, ServerSentEvent.comment("keep-alive")) { return }
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

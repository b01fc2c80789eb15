import Foundation
import GalleryHTTP
import GalleryIO

/// What an `HTTPTestServer` asks of the server built on it: limits and answers.
protocol HTTPTestRoutes: AnyObject, Sendable {
    /// The most body bytes the request `head` may carry (more is refused with 413).
    func bodyLimit(for head: HTTPRequestHead) -> Int
    /// Body bytes of `head`'s request arrived: `received` so far.
    func receiving(_ head: HTTPRequestHead, received: Int)
    /// Answers one request; false when the connection must close (or became a stream that ended).
    func respond(to request: HTTPRequestHead, body: [UInt8], on pair: StreamPair) -> Bool
    /// The codec refused a request: it is answered with the error's status, then closed.
    func refused(_ error: HTTPRequestError)
    /// A connection ended (its streams are closed).
    func closed(_ pair: StreamPair)
}

extension HTTPTestRoutes {
    func receiving(_ head: HTTPRequestHead, received: Int) {}
    func refused(_ error: HTTPRequestError) {}
    func closed(_ pair: StreamPair) {}
}

/// The socket half of the browser tests' HTTP servers (`FakeNodeServer`, `TestWebServer`):
/// GalleryIO's `Listener` on 127.0.0.1, one thread per connection, GalleryHTTP's parser; each
/// request goes to the routes.
///
/// `@unchecked Sendable`: mutable state is guarded by `lock`.
final class HTTPTestServer: @unchecked Sendable {
    /// The bound port on 127.0.0.1.
    let port: UInt16
    private let name: String
    private let listener: Listener
    private let lock = NSLock()
    private var connections: [StreamPair] = []
    private var stopped = false

    /// Listens on 127.0.0.1:`port` (0: ephemeral); `start` begins accepting. `name` names the threads.
    init(port: UInt16 = 0, name: String) throws {
        listener = try Listener(Endpoint(host: "127.0.0.1", port: port))
        self.port = listener.endpoint.port
        self.name = name
    }

    /// Accepts connections and hands their requests to `routes` (held weakly: they own this server).
    func start(_ routes: any HTTPTestRoutes) {
        let thread = Thread { [self, weak routes] in
            while let pair = try? listener.accept() {
                let accepted = lock.withLock { () -> Bool in
                    if stopped { return false }
                    connections.append(pair)
                    return true
                }
                guard accepted, let routes else {
                    pair.close()
                    return
                }
                let connection = Thread { [self] in serve(pair, routes) }
                connection.name = "\(name) connection"
                connection.start()
            }
        }
        thread.name = "\(name) accept"
        thread.start()
    }

    /// True once `stop()` ran.
    var isStopped: Bool { lock.withLock { stopped } }

    /// Stops accepting and closes every connection.
    func stop() {
        listener.close()
        let open = lock.withLock {
            stopped = true
            defer { connections.removeAll() }
            return connections
        }
        open.forEach { $0.close() }
    }

    /// Reads requests until the client closes, a response closes, or the codec refuses.
    private func serve(_ pair: StreamPair, _ routes: any HTTPTestRoutes) {
        defer {
            pair.close()
            lock.withLock { connections.removeAll { $0.input === pair.input } }
            routes.closed(pair)
        }
        var parser = HTTPRequestParser()
        var head: HTTPRequestHead?
        var body: HTTPBodyCollector?
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
                        body = try HTTPBodyCollector(head: received, limit: routes.bodyLimit(for: received))
                        if received.expectsContinue { pair.output.writeAll(HTTPResponseHead.continueBytes) }
                    case .body(let chunk):
                        body?.append(chunk)
                        if let head { routes.receiving(head, received: body?.bytes.count ?? 0) }
                    case .end:
                        guard let request = head else { return }
                        if !routes.respond(to: request, body: body?.bytes ?? [], on: pair) { return }
                    }
                }
            } catch {
                routes.refused(error)
                pair.output.writeAll(HTTPResponseHead.refusal(error))
                return
            }
        }
    }
}

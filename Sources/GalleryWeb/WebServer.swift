import Foundation
import GalleryIO
import GalleryNode

/// The web adapter (issue 13, http-api.md): an HTTP/1.1 server in the node, beside the control
/// socket of `GalleryControl`, serving the page, the JSON API over the node's typed commands and
/// use cases, the blobs, uploads and the live event stream. It never reaches into the node's
/// state: it calls the same commands as the command line and follows the same event stream.
///
/// **Threads, not the event loops.** The peer port runs on the epoll loops because a node may hold
/// hundreds of mostly idle peers. A browser holds at most six connections per origin, and a node
/// serves one person's page or two; what the web adapter does is long sequential I/O on each
/// connection: a 256 MiB blob streamed from disk, an upload streamed to disk while hashing, an
/// event stream that waits for the node. On a blocking socket each of those is a plain loop whose
/// flow control is the socket itself (a slow browser blocks its own writer, nothing else), where
/// the loops would need a write-readiness state machine per response kind and a file read that
/// never blocks a loop shared with the peers. So each connection gets a thread (`Listener` and
/// `StreamPair` of GalleryIO, as the tests' web servers use), at most `maximumConnections` at once
/// (more are closed at accept): a bounded cost, kept off the peers' loops and the node's inbox. A
/// connection that neither reads nor writes for 30 s (an idle keep-alive, a client that stopped
/// reading a blob, a slow-loris head) is closed, so that idle clients cannot hold every slot; event
/// streams write a comment every 15 s and stay.
///
/// `@unchecked Sendable`: mutable state is guarded by `lock`.
package final class WebServer: @unchecked Sendable {
    /// The address bound (the real port when port 0 was asked for).
    package let endpoint: Endpoint
    /// `http://HOST:PORT/?token=TOKEN`: the link that signs a browser in.
    package let signInURL: String
    /// `http://HOST:PORT` as bound.
    package let origin: String
    /// The most connections served at once.
    package static let maximumConnections = 64
    /// How long a connection may neither read nor write before it is closed (30 s unless told).
    private let idleLimit: Duration

    private let listener: Listener
    private let api: WebAPI
    private let lock = NSLock()
    // Guarded by `lock`.
    private var connections: [ObjectIdentifier: WebConnection] = [:]
    private var stopped = false

    /// Binds `listen` and starts serving `node`.
    ///
    /// - Parameters:
    ///   - directory: The node's directory: its token is `DIR/http-token` (made, mode 0600, when missing).
    ///   - temporaryDirectory: Where upload bytes are written while they arrive (the blob store's `tmp/`).
    ///   - idleLimit: How long a connection may neither read nor write before it is closed.
    package init(node: SyncNode, directory: URL, listen: Endpoint, temporaryDirectory: URL, idleLimit: Duration = .seconds(30)) throws {
        self.idleLimit = idleLimit
        let token = try WebToken.load(in: directory)
        listener = try Listener(listen)
        endpoint = listener.endpoint
        let access = WebAccess(token: token, host: listen.host, port: endpoint.port)
        origin = access.origin
        signInURL = "\(access.origin)/?token=\(token)"
        let uploads = WebUploads(node: node, temporaryDirectory: temporaryDirectory)
        uploads.abandonUnfinished()
        let feed = WebEventFeed(node: node) { [weak node] item in
            uploads.reason(of: item) ?? node?.transfers?.failureReason(of: item)
        }
        api = WebAPI(node: node, feed: feed, uploads: uploads, access: access, space: SpaceIdentity.id(ofSecret: node.configuration.secret))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "web accept"
        thread.start()
        let reaper = Thread { [self] in closeIdleConnections() }
        reaper.name = "web idle"
        reaper.start()
    }

    /// Every second (a quarter of `idleLimit` when shorter) until stopped: closes the connections
    /// idle for `idleLimit`.
    private func closeIdleConnections() {
        while true {
            Thread.sleep(forTimeInterval: min(1, Double(idleLimit.components.seconds) / 4 + Double(idleLimit.components.attoseconds) / 4e18))
            let idle = lock.withLock { () -> [WebConnection]? in
                stopped ? nil : connections.values.filter { $0.isIdle(for: idleLimit) }
            }
            guard let idle else { return }
            idle.forEach { $0.close() }
        }
    }

    /// Stops accepting, ends every event stream and closes every connection.
    package func stop() {
        listener.close()
        api.feed.stop()
        let open = lock.withLock {
            stopped = true
            return Array(connections.values)
        }
        open.forEach { $0.close() }
    }

    private func acceptLoop() {
        while true {
            let pair: StreamPair
            do {
                pair = try listener.accept()
            } catch .closed {
                return
            } catch {
                // Out of descriptors or a transient failure: back off, the backlog keeps the client.
                Thread.sleep(forTimeInterval: 0.1)
                continue
            }
            let key = ObjectIdentifier(pair.input)
            let connection = WebConnection(pair: pair, api: api)
            let admitted = lock.withLock { () -> Bool in
                guard !stopped, connections.count < Self.maximumConnections else { return false }
                connections[key] = connection
                return true
            }
            guard admitted else {
                pair.close()
                continue
            }
            let thread = Thread { [self] in
                connection.run()
                _ = lock.withLock { connections.removeValue(forKey: key) }
            }
            thread.name = "web connection"
            thread.start()
        }
    }
}

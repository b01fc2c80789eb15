import Foundation
import GalleryIO
import GalleryNode
import Synchronization

/// The web adapter (http-api.md): an HTTP/1.1 server in the node, beside the control socket of
/// `GalleryControl`, serving the page, the JSON API over the node's typed commands and use cases,
/// the blobs, uploads and the live event stream. It never reaches into the node's state: it calls
/// the same commands as the command line and follows the same event stream.
///
/// **On the node's event loops.** Accepting and every connection's reads and writes run on the
/// loops the peers use (`SyncNode.ioLoops`; a loop group of the server's own when the node has
/// none), so an open page costs a socket and a few kilobytes, not a thread: a thousand open event
/// streams leave the page as quick to load as none. What may block (asking the node, the disk)
/// runs on a small pool of web workers (`WebWorkers`), one lane per connection; see
/// `WebConnection` for the bounds each connection keeps.
///
package final class WebServer: Sendable {
    /// The open connections by number, and whether the server stopped or ticks.
    private struct Connections {
        var byID: [Int: WebConnection] = [:]
        var nextID = 0
        var stopped = false
        /// Whether the tick runs: only while a connection is open, so that an idle node wakes for
        /// nothing here.
        var ticking = false
    }

    /// The address bound (the real port when port 0 was asked for).
    package let endpoint: Endpoint
    /// `http://HOST:PORT/?token=TOKEN`: the link that signs a browser in.
    package let signInURL: String
    /// `http://HOST:PORT` as bound.
    package let origin: String
    /// The most connections open at once (more are closed at accept): a bound on descriptors.
    package static let maximumConnections = 8_192

    private let limits: WebConnection.Limits
    private let loops: EventLoopGroup
    /// Whether `loops` were made for this server (and end with it).
    private let ownsLoops: Bool
    private let listener: LoopListener
    private let workers = WebWorkers()
    private let api: WebAPI
    private let connections = Mutex(Connections())

    /// Binds `listen` and starts serving `node`.
    ///
    /// - Parameters:
    ///   - directory: The node's directory: its token is `DIR/http-token` (made, mode 0600, when missing).
    ///   - temporaryDirectory: Where upload bytes are written while they arrive (the blob store's `tmp/`).
    ///   - idleLimit: How long a connection may stay silent (between requests, mid-body, or not
    ///     reading its answer) before it is closed; event streams stay.
    ///   - headerTimeout: How long a request head may take from its first byte to its last.
    package convenience init(node: SyncNode, directory: URL, listen: Endpoint, temporaryDirectory: URL,
                            idleLimit: Duration = .seconds(30), headerTimeout: Duration = .seconds(10)) throws {
        var limits = WebConnection.Limits()
        limits.idleLimit = idleLimit
        limits.headerTimeout = headerTimeout
        try self.init(node: node, directory: directory, listen: listen, temporaryDirectory: temporaryDirectory, limits: limits)
    }

    /// Binds `listen` and starts serving `node`, with every bound of a connection given;
    /// `assets`, when set, is the directory the page's files are read from (`WebPageOverride`; by
    /// default `GALLERY_WEB_ASSETS`'s), refused at once when it is not a directory.
    init(node: SyncNode, directory: URL, listen: Endpoint, temporaryDirectory: URL, limits: WebConnection.Limits,
         assets: String? = PageAssets.overrideDirectory?.path) throws {
        let pageOverride = try assets.map(WebPageOverride.init)
        self.limits = limits
        let token = try WebToken.load(in: directory)
        if let shared = node.ioLoops {
            loops = shared
            ownsLoops = false
        } else {
            loops = try EventLoopGroup(name: "gallery-web")
            ownsLoops = true
        }
        do {
            listener = try LoopListener(listen, loop: loops.loops[0], backlog: 1024)
        } catch {
            if ownsLoops { loops.shutdown() }
            workers.stop()
            throw error
        }
        endpoint = listener.endpoint ?? listen
        let access = WebAccess(token: token, host: listen.host, port: endpoint.port)
        origin = access.origin
        signInURL = "\(access.origin)/?token=\(token)"
        let uploads = WebUploads(node: node, temporaryDirectory: temporaryDirectory)
        uploads.abandonUnfinished()
        let feed = WebEventFeed(node: node) { [weak node] item in
            uploads.reason(of: item) ?? node?.transfers?.failureReason(of: item)
        }
        api = WebAPI(node: node, feed: feed, uploads: uploads, access: access, space: SpaceIdentity.id(of: node.configuration.space),
                     pageOverride: pageOverride)
        listener.start(
            accepted: { [weak self] descriptor, remote in
                guard let self else { return POSIX.closeDescriptor(descriptor) }
                accepted(descriptor, remote: remote)
            },
            // Out of descriptors: the connection stays in the backlog; wait rather than spin.
            failed: { _ in 100_000_000 })
    }

    /// Stops accepting, ends every event stream and closes every connection.
    package func stop() {
        let open = connections.withLock { connections -> [WebConnection]? in
            guard !connections.stopped else { return nil }
            connections.stopped = true
            return Array(connections.byID.values)
        }
        guard let open else { return }
        listener.close()
        api.feed.stop()
        open.forEach { $0.close() }
        workers.stop()
        if ownsLoops { loops.shutdown() }
    }

    /// How many connections are open (for tests and benchmarks).
    package var connectionCount: Int { connections.withLock { $0.byID.count } }

    /// A connection accepted on the listener's loop: registered on the next loop, round robin.
    private func accepted(_ descriptor: Int32, remote: String) {
        let socket = NonBlockingSocket(descriptor: descriptor, remote: remote, loop: loops.next())
        let connection = connections.withLock { connections -> WebConnection? in
            guard !connections.stopped, connections.byID.count < Self.maximumConnections else { return nil }
            connections.nextID += 1
            let connection = WebConnection(
                id: connections.nextID, socket: socket, api: api, lane: workers.lane(), limits: limits
            ) { [weak self] connection in
                _ = self?.connections.withLock { $0.byID.removeValue(forKey: connection.id) }
            }
            connections.byID[connections.nextID] = connection
            return connection
        }
        let startTicking = connections.withLock { connections -> Bool in
            defer { connections.ticking = true }
            return connection != nil && !connections.ticking
        }
        if startTicking { scheduleTick() }
        guard let connection else {
            socket.loop.execute { socket.close() }
            return
        }
        connection.start()
    }

    /// Twice a second while any connection is open (the next one starts it again): each loop
    /// ticks its connections (timeouts, keep-alive comments).
    private func scheduleTick() {
        loops.loops[0].schedule(after: 500_000_000) { [weak self] in
            guard let self else { return }
            let open = connections.withLock { connections -> [WebConnection]? in
                guard !connections.stopped && !connections.byID.isEmpty else {
                    connections.ticking = false
                    return nil
                }
                return Array(connections.byID.values)
            }
            guard let open else { return }
            let byLoop = Dictionary(grouping: open) { ObjectIdentifier($0.loop) }
            for group in byLoop.values {
                group[0].loop.execute {
                    let now = DispatchTime.now().uptimeNanoseconds
                    for connection in group { connection.tick(now: now) }
                }
            }
            scheduleTick()
        }
    }
}

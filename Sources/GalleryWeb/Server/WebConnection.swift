import Foundation
import GalleryHTTP
import GalleryIO
import Synchronization

/// One browser connection on one of the node's event loops: requests read with the sans-I/O
/// codec (`HTTPRequestParser`) and answered one at a time, in order (keep-alive, pipelining).
///
/// The loop does only what cannot block: parsing, the security checks (`WebAccess`), routing
/// refusals, the embedded page, and moving bytes. Everything that asks the node or touches a disk
/// runs on the connection's lane of the web workers (`WebWorkers.Lane`), which hands its reply
/// back with `execute`. While a request is being answered the parser is not asked for the next
/// one, so pipelined requests wait in its buffer (reading pauses past `Limits.pipelinedBytes`),
/// and their answers go out in order.
///
/// Bounded per connection: the parser's buffer, a body read whole (1 MiB), upload bytes queued
/// for the disk (`Limits.uploadQueued`: reading pauses), a blob's pieces (read only while fewer
/// than `WebOutbox.lowWater` bytes wait), and an event stream's backlog (`Limits.outboxLimit`:
/// the reader is dropped). `tick` closes heads that take too long (slowloris), silent
/// connections, and readers that stopped reading.
///
/// Its state is `LoopBound` to its loop's thread (checked on every access in debug builds);
/// `wakePending` is atomic.
final class WebConnection: Sendable {
    /// The bounds and timeouts of every connection of a server.
    struct Limits: Sendable {
        /// How long a connection may stay silent (between requests, mid-body, or not reading what
        /// it asked for) before it is closed.
        var idleLimit: Duration = .seconds(30)
        /// How long a request head may take from its first byte to its last.
        var headerTimeout: Duration = .seconds(10)
        /// The most bytes an event stream may leave unread before it is dropped.
        var outboxLimit = 1 << 20
        /// The most bytes of pipelined requests read ahead while one is answered.
        var pipelinedBytes = 64 << 10
        /// The most upload bytes waiting for the disk before reading pauses.
        var uploadQueued = 1 << 20
    }

    /// What the connection is doing.
    enum State {
        /// Reading a request head.
        case idle
        /// Reading a body to answer once it is whole.
        case buffered(HTTPRequestHead, WebRoute, HTTPBodyCollector)
        /// Reading (and dropping) the body of a refused request.
        case refused(HTTPRequestHead, WebResponse)
        /// Handing an upload's body to its lane.
        case uploading(HTTPRequestHead, WebUploadSlot)
        /// The lane prepares the answer.
        case answering
        /// Streaming a blob: the next offset, and whether a piece is being read.
        case blob(WebBlobBody, offset: Int, reading: Bool, keepAlive: Bool)
        /// An event stream: no further request is read.
        case events(stream: Int, cursor: Int)
        /// Closed.
        case closed
    }

    let id: Int
    let api: WebAPI
    let lane: WebWorkers.Lane
    let limits: Limits
    let channel: StreamChannel
    let outbox: WebOutbox
    /// Called once, on the loop, when the connection has closed (forwarded by `get`/`set`: a
    /// closure yielded by `_read`/`_modify` crashes the Swift 6.3 compiler).
    var ended: (@Sendable (WebConnection) -> Void)? {
        get { boundEnded.value }
        set { boundEnded.value = newValue }
    }
    private let boundEnded: LoopBound<(@Sendable (WebConnection) -> Void)?>

    var state: State { _read { yield boundState.value } _modify { yield &boundState.value } }
    private let boundState: LoopBound<State>
    var parser: HTTPRequestParser { _read { yield boundParser.value } _modify { yield &boundParser.value } }
    private let boundParser: LoopBound<HTTPRequestParser>
    /// When the head being read got its first byte (uptime, nanoseconds), nil between heads.
    var headStarted: UInt64? { _read { yield boundHeadStarted.value } _modify { yield &boundHeadStarted.value } }
    private let boundHeadStarted: LoopBound<UInt64?>
    /// When bytes last arrived (uptime, nanoseconds).
    var lastRead: UInt64 { _read { yield boundLastRead.value } _modify { yield &boundLastRead.value } }
    private let boundLastRead: LoopBound<UInt64>
    /// Upload bytes handed to the lane and not yet written.
    var uploadQueued: Int { _read { yield boundUploadQueued.value } _modify { yield &boundUploadQueued.value } }
    private let boundUploadQueued: LoopBound<Int>
    /// Whether a wake-up of the event stream is queued on the loop.
    let wakePending = Atomic<Bool>(false)
    /// Whether `process` is running (an answer written in place must not start it again inside).
    private var processing: Bool { _read { yield boundProcessing.value } _modify { yield &boundProcessing.value } }
    private let boundProcessing: LoopBound<Bool>

    /// A connection over `socket` (not yet registered with its loop), calling `ended` once it has
    /// closed.
    init(
        id: Int, socket: NonBlockingSocket, api: WebAPI, lane: WebWorkers.Lane, limits: Limits,
        ended: @escaping @Sendable (WebConnection) -> Void
    ) {
        self.id = id
        outbox = WebOutbox(owner: socket.loop.owner)
        boundEnded = LoopBound(ended, owner: socket.loop.owner)
        boundState = LoopBound(.idle, owner: socket.loop.owner)
        boundParser = LoopBound(HTTPRequestParser(), owner: socket.loop.owner)
        boundHeadStarted = LoopBound(nil, owner: socket.loop.owner)
        boundLastRead = LoopBound(DispatchTime.now().uptimeNanoseconds, owner: socket.loop.owner)
        boundUploadQueued = LoopBound(0, owner: socket.loop.owner)
        boundProcessing = LoopBound(false, owner: socket.loop.owner)
        self.api = api
        self.lane = lane
        self.limits = limits
        let handler = WebChannelHandler()
        channel = StreamChannel(socket: socket, source: outbox, handlers: [handler])
        handler.connection = self
        outbox.setDrainedBeforeSharing { [weak self] in
            // Only a blob waits for room; and not in place: the channel is in the middle of writing.
            guard let self, case .blob(_, _, false, _) = state else { return }
            channel.execute { self.outboxDrained() }
        }
    }

    /// The loop the connection runs on.
    var loop: EventLoop { channel.loop }

    /// Registers the socket and starts reading.
    func start() { channel.activate() }

    /// Closes the connection (from any thread).
    func close() {
        channel.execute { [self] in channel.close(reason: "closed by the server") }
    }

    func assertOnLoop() {
        assert(loop.inEventLoop, "a web connection's state is touched on its loop only")
    }

    // MARK: Reading

    /// Bytes from the client.
    func received(_ bytes: [UInt8]) {
        assertOnLoop()
        lastRead = DispatchTime.now().uptimeNanoseconds
        switch state {
        case .events, .closed: return  // Nothing is read after an event stream's request.
        default: break
        }
        parser.receive(bytes)
        process()
    }

    /// Takes parser events while the state allows (one request at a time), then decides whether
    /// to keep reading.
    func process() {
        assertOnLoop()
        guard !processing else { return }
        processing = true
        defer { processing = false }
        parse: while !outbox.isFinishing {
            switch state {
            case .answering, .blob, .events, .closed: break parse
            case .idle, .buffered, .refused, .uploading: break
            }
            let event: HTTPRequestEvent?
            do {
                event = try parser.next()
            } catch {
                let refusal = WebRefusal(error.status.code, "badRequest", error.errorDescription ?? "bad request")
                write(WebResponse.refusal(refusal).serialized(for: nil, keepAlive: false), keepAlive: false)
                break parse
            }
            guard let event else { break parse }
            handle(event)
        }
        if case .idle = state, !parser.isIdle {
            if headStarted == nil { headStarted = DispatchTime.now().uptimeNanoseconds }
        } else {
            headStarted = nil
        }
        updateReading()
    }

    /// Reads while there is room: not past `pipelinedBytes` of requests waiting their turn, nor
    /// past `uploadQueued` bytes waiting for the disk.
    func updateReading() {
        let waiting: Bool = switch state {
        case .answering, .blob: parser.bufferedByteCount >= limits.pipelinedBytes
        case .closed: true
        default: false
        }
        channel.setReading(!waiting && uploadQueued < limits.uploadQueued)
    }

    /// Takes one parser event.
    private func handle(_ event: HTTPRequestEvent) {
        switch event {
        case .head(let head):
            headStarted = nil
            begin(head)
        case .body(let chunk):
            switch state {
            case .buffered(let head, let route, var collector):
                state = .idle  // Keeps the collector's buffer unshared while it grows.
                collector.append(chunk)
                state = .buffered(head, route, collector)
            case .uploading(_, let slot):
                queueUpload(chunk, into: slot)
            default:
                break
            }
        case .end:
            let current = state
            state = .answering
            switch current {
            case .refused(let head, let response):
                write(response.serialized(for: head, keepAlive: head.keepAlive), keepAlive: head.keepAlive)
            case .buffered(let head, let route, let collector):
                answer(head, route: route, body: collector.bytes)
            case .uploading(let head, let slot):
                finishUpload(head, slot: slot)
            default:
                close(reason: "a request ended that never began")
            }
        }
    }

    /// Checks a request's head and decides how its body is read.
    private func begin(_ head: HTTPRequestHead) {
        let route: WebRoute
        switch (api.access.decide(head), WebRoute.decode(method: head.method, path: head.path)) {
        case (.answer(let refusal), _):
            refuse(head, refusal)
            return
        case (.allowed, .failure(let problem)):
            refuse(head, WebAPI.refusal(problem, path: head.path))
            return
        case (.allowed, .success(.upload(let upload))):
            beginUpload(head, upload: upload)
            return
        case (.allowed, .success(let decoded)):
            route = decoded
        }
        do {
            state = .buffered(head, route, try HTTPBodyCollector(head: head))
        } catch {
            let refusal = WebRefusal(error.status.code, "tooLarge", error.errorDescription ?? "the body is too large")
            write(WebResponse.refusal(refusal).serialized(for: head, keepAlive: false), keepAlive: false)
            return
        }
        if head.expectsContinue { outboxWrite(HTTPResponseHead.continueBytes) }
    }

    /// Answers a refused request once its body is read and dropped, or at once, closing, when its
    /// body is too large to be worth reading.
    private func refuse(_ head: HTTPRequestHead, _ refusal: WebResponse) {
        guard head.contentLength <= UInt64(HTTPLimits.maxBufferedBodyBytes) else {
            // The body is not read: the connection closes after the answer.
            write(refusal.serialized(for: head, keepAlive: false), keepAlive: false)
            return
        }
        state = .refused(head, refusal)
    }

    /// Answers a request whose body is in: the embedded page at once, anything else on the lane.
    private func answer(_ head: HTTPRequestHead, route: WebRoute, body: [UInt8]) {
        if let asset = api.embeddedAsset(route, query: head.query) {
            write(asset.serialized(for: head, keepAlive: head.keepAlive), keepAlive: head.keepAlive)
            return
        }
        let api = api
        lane.submit { [self] in
            // A blob fetched from a peer is answered later: the connection stays `answering`
            // meanwhile, holding no worker.
            api.reply(to: head, route: route, body: body, lane: lane, wake: { [weak self] in self?.wake() }) { [self] reply in
                channel.execute { self.answered(reply) }
            }
        }
    }

    // MARK: Writing

    /// The lane's reply for the request being answered.
    func answered(_ reply: WebReply) {
        assertOnLoop()
        guard case .answering = state else {
            // Closed meanwhile: release what the reply holds.
            switch reply {
            case .blob(_, let body, _): lane.submit { body.close() }
            case .events(_, _, let stream): api.feed.close(stream: stream)
            case .response: break
            }
            return
        }
        switch reply {
        case .response(let bytes, let keepAlive):
            write(bytes, keepAlive: keepAlive)
        case .blob(let head, let body, let keepAlive):
            outboxWrite(head)
            state = .blob(body, offset: body.span.lowerBound, reading: false, keepAlive: keepAlive)
            continueBlob()
        case .events(let first, let cursor, let stream):
            outboxWrite(first)
            state = .events(stream: stream, cursor: cursor)
            updateReading()
            pullEvents()
        }
    }

    /// Queues a whole response; the next request is read after it unless the connection closes.
    func write(_ bytes: [UInt8], keepAlive: Bool) {
        outboxWrite(bytes)
        responded(keepAlive: keepAlive)
    }

    /// The current response is all queued: on to the next request, or close once written.
    func responded(keepAlive: Bool) {
        if keepAlive {
            state = .idle
            process()
        } else {
            state = .idle
            outbox.finish()
            channel.flush()
        }
    }

    /// Queues bytes and writes what the socket takes.
    func outboxWrite(_ bytes: [UInt8]) {
        outbox.append(bytes)
        channel.flush()
    }

    /// Fewer than `WebOutbox.lowWater` bytes wait: a blob's next piece may be read.
    private func outboxDrained() {
        if case .blob = state { continueBlob() }
    }

    /// Closes the socket.
    func close(reason: String) {
        channel.close(reason: reason)
    }

    /// The channel has closed: what the connection holds is released.
    func channelClosed() {
        let previous = state
        state = .closed
        switch previous {
        case .uploading(_, let slot): abandonUpload(slot)
        case .blob(let body, _, _, _): lane.submit { body.close() }
        case .events(let stream, _): api.feed.close(stream: stream)
        default: break
        }
        outbox.closeSource()
        ended?(self)
        ended = nil
    }
}

/// The pipeline of a web connection: bytes to the connection, and its close.
private final class WebChannelHandler: ChannelHandler {
    /// The connection (weak: it owns the channel, which owns this handler).
    weak var connection: WebConnection?

    func channelRead(context: ChannelHandlerContext, _ data: Any) {
        guard let bytes = data as? [UInt8] else { return }
        connection?.received(bytes)
    }

    func channelInactive(context: ChannelHandlerContext, reason: String) {
        connection?.channelClosed()
    }
}

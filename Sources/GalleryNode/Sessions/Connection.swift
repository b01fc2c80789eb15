import Foundation
import GalleryIO
import GalleryWire
import Synchronization

/// What a connection tells its node.
protocol ConnectionDelegate: AnyObject, Sendable {
    /// The peer proved the secret; the node may start the sync session.
    func connectionAuthenticated(_ connection: Connection)
    /// The dialed node presented another static key than the one expected: refused.
    func connectionRefusedIdentity(_ connection: Connection, reason: String)
    /// A message arrived after authentication.
    func connection(_ connection: Connection, received message: Message)
    /// `close` was called at `since`: the channel must be closed `Connection.closeGrace` later
    /// at the latest.
    func connectionClosing(_ connection: Connection, since: UInt64)
    /// The connection is closed, for the reason given.
    func connectionClosed(_ connection: Connection, reason: String)
}

/// One connection to a peer, as its node sees it: a channel whose pipeline decodes frames,
/// runs the handshake, opens the sealed records and turns frames into messages
/// (`FrameCodecHandler` -> `HandshakeHandler` -> `SecureChannelHandler` -> `MessageHandler`), and an outbox of frames by priority that the channel drains as the
/// socket has room.
///
/// The channel is the transport's: a `StreamChannel` on one of the node's event loops, or a
/// simulated one. Any thread may send or close; the mutable state is in a `Mutex`.
final class Connection: Sendable {
    /// Who opened the connection.
    enum Role: String, Sendable {
        case client = "outbound"
        case server = "inbound"
    }

    /// Unique per node.
    let id: Int
    let role: Role
    /// The peer's address as the socket reports it.
    let remote: String
    /// The configured address this connection dialed (nil for an inbound one): its key is pinned.
    let dialed: Endpoint?
    /// When the connection was made (uptime, nanoseconds): the handshake deadline counts from it.
    let startedAt: UInt64
    /// Where the connection's timestamps are read from (the node's clock).
    let clock: any NodeClock
    /// What waits to be written to the peer.
    let outbox: PeerOutbox
    /// Frame types this connection never sends (`NodeEnvironment.withheldFrames`: a hostile
    /// member in a simulation); empty in production.
    private let withheld: Set<UInt8>
    /// Asked for each frame not in `withheld` (`NodeEnvironment.withholds`); nil in production.
    private let withholds: (@Sendable (FrameType, Int) -> Bool)?
    private weak let delegate: (any ConnectionDelegate)?
    /// The mutable state.
    let state: Mutex<State>

    /// What changes over the connection's life, under `state`.
    struct State {
        /// The channel (its methods run on its event loop, except `execute`).
        var channel: (any Channel)?
        var closing = false
        var closeReason: String?
        var identity: PeerIdentity?
        var receivedBytes = 0
        var lastReceived: UInt64
        /// Whether the pipeline is handling received bytes (e.g. a long catch-up); the peer is not
        /// silent meanwhile, whatever it sends waits in the socket.
        var handlingFrames = false
        /// When `close` was first called (uptime, nanoseconds); the channel is closed a second later
        /// at the latest, even if the peer does not read the farewell.
        var closingSince: UInt64?
        /// Quiet liveness (`Connection+Liveness`): the silence this node told the peer it takes, and
        /// the heartbeat interval the peer's `features` allow; nil: the configuration's.
        var silenceTolerated: UInt64?
        var quietHeartbeatInterval: UInt64?
        /// Called once the connection has closed and the node was told (after `finished`).
        var onFinished: (@Sendable (Connection) -> Void)?

        /// Whether the handshake is over.
        var peerKnown: Bool { identity != nil }
    }

    /// The channel, once installed.
    var channel: (any Channel)? { state.withLock { $0.channel } }
    /// Signalled once the channel has closed and the node was told.
    let finished = DispatchSemaphore(value: 0)
    /// Chain hashes of the ops of its frames, made on its event loop (`FrameChainHasher`).
    let frameChains = FrameChainHasher()

    /// A connection over a link of the node's `NodeTransport` (TCP on an event loop, or a
    /// simulated network).
    convenience init(id: Int, role: Role, link: any TransportLink, settings: HandshakeSettings, queueLimit: Int,
                     clock: any NodeClock, tally: WireTally? = nil, withheld: Set<FrameType> = [],
                     withholds: (@Sendable (FrameType, Int) -> Bool)? = nil, delegate: any ConnectionDelegate,
                     dialed: Endpoint? = nil, expectedNode: NodeID? = nil) {
        self.init(id: id, role: role, remote: link.remote, dialed: dialed, queueLimit: queueLimit, clock: clock, tally: tally,
                  withheld: withheld, withholds: withholds, delegate: delegate)
        let handlers = Self.handlers(for: self, role: role, settings: settings, expectedNode: expectedNode)
        install(link.makeChannel(source: outbox, handlers: handlers))
    }

    private init(id: Int, role: Role, remote: String, dialed: Endpoint?, queueLimit: Int, clock: any NodeClock = SystemClock(),
                 tally: WireTally? = nil, withheld: Set<FrameType> = [], withholds: (@Sendable (FrameType, Int) -> Bool)? = nil,
                 delegate: any ConnectionDelegate) {
        self.id = id
        self.withheld = Set(withheld.map(\.rawValue))
        self.withholds = withholds
        self.role = role
        self.remote = remote
        self.dialed = dialed
        self.delegate = delegate
        self.clock = clock
        self.startedAt = clock.now
        self.state = Mutex(State(lastReceived: startedAt))
        self.outbox = PeerOutbox(limit: queueLimit, clock: clock, tally: tally)
    }

    private func install(_ channel: any Channel) {
        state.withLock { $0.channel = channel }
    }

    /// The pipeline of a peer connection, head first; the handlers hold the connection weakly.
    private static func handlers(for connection: Connection, role: Role, settings: HandshakeSettings,
                                 expectedNode: NodeID?) -> [any ChannelHandler] {
        [
            ReceiveActivityHandler(connection),
            FrameCodecHandler(outbox: connection.outbox),
            HandshakeHandler(dialing: role == .client, settings: settings, expectedNode: expectedNode),
            SecureChannelHandler(settings: settings),
            MessageHandler(),
            ConnectionEndHandler(connection),
        ]
    }

    /// The authenticated peer, nil during the handshake.
    var peer: PeerIdentity? {
        state.withLock { $0.identity }
    }

    /// Whether the peer has completed the handshake.
    var isAuthenticated: Bool {
        state.withLock { $0.identity != nil }
    }

    /// Whether `close` has been called.
    var isClosing: Bool {
        state.withLock { $0.closing }
    }

    /// Why the connection closed ("CODE: reason" for an error it sent), once it has.
    var closeDescription: String? {
        state.withLock { $0.closeReason }
    }

    /// Bytes received and sent on this connection so far.
    var byteCounts: (received: Int, sent: Int) {
        (state.withLock { $0.receivedBytes }, outbox.sent.bytes)
    }

    /// The event loop the connection runs on; nil on a simulated network.
    var eventLoop: EventLoop? {
        (channel as? StreamChannel)?.loop
    }

    /// When bytes were last written to the peer (uptime, nanoseconds).
    var lastSent: UInt64 { outbox.sent.last }

    /// Starts the channel (a client sends `hello` first); `onFinished` runs once it has closed.
    func start(onFinished: (@Sendable (Connection) -> Void)? = nil) {
        let channel = state.withLock { state -> (any Channel)? in
            state.onFinished = onFinished
            return state.channel
        }
        (channel as? any TransportChannel)?.activate()
    }

    /// Blocks until the channel has closed and the node was told.
    func waitUntilFinished() {
        finished.wait()
        finished.signal()
    }

    // MARK: Sending

    /// Queues a message; a peer whose queue overflows is dropped as too slow.
    @discardableResult
    func send(_ message: Message) -> Bool {
        send(message.frame, priority: message.type.priority)
    }

    /// Queues a frame; a peer whose queue overflows is dropped as too slow.
    ///
    /// - Parameter backlog: A catch-up frame: bounded by the size of the op log, it does not count
    ///   against the slow-peer limit, which bounds what piles up on top of it.
    @discardableResult
    func send(_ frame: Frame, priority: FramePriority, backlog: Bool = false) -> Bool {
        if !withheld.isEmpty && withheld.contains(frame.type) { return true }
        if let withholds, let type = FrameType(rawValue: frame.type), withholds(type, id) { return true }
        switch outbox.push(frame, priority: priority, backlog: backlog) {
        case .queued(let wake):
            if wake { flushChannel() }
            return true
        case .closed:
            return false
        case .full:
            close(.slowPeer, "outbound queue over \(outbox.limit) bytes")
            return false
        }
    }

    /// The most fetches one connection serves at once.
    static let maximumServedFetches = PeerOutbox.maximumServedFetches

    /// Starts sending the chunks of a fetch, interleaved with the other fetches served and sent
    /// only when no control or ops frame waits; false when the connection already serves the
    /// most fetches it may.
    func serve(_ stream: ChunkStream) -> Bool {
        switch outbox.serve(stream) {
        case nil: return false
        case .queued(let wake)?:
            if wake { flushChannel() }
            return true
        case .closed?, .full?: return false
        }
    }

    /// Stops sending the chunks of a fetch (the peer cancelled it).
    func stopServing(_ request: UInt64) {
        outbox.stopServing(request)
    }

    /// Asks the channel, on its thread, to write what the outbox holds.
    private func flushChannel() {
        guard let channel = state.withLock({ $0.channel }) else { return }
        channel.execute { [weak channel] in channel?.flush() }
    }

    /// Closes the channel now, on its thread, whatever waits in the outbox.
    func closeChannel() {
        guard let channel = state.withLock({ $0.channel }) else { return }
        channel.execute { [weak channel] in channel?.close() }
    }

    /// Sends an error frame (when a code is given), then closes. Idempotent.
    ///
    /// The channel closes once the error frame is out. A peer that does not read gets its socket
    /// closed anyway after a second: by `tick` while the node runs, by `waitUntilClosed` at a stop.
    /// No Dispatch queue or timer is used here: libdispatch makes its descriptors (epoll, eventfd,
    /// timerfd) on first use of a global queue or timer and traps when it cannot, so a node at its
    /// descriptor limit that had not used Dispatch yet died (SIGILL) the first time it closed a
    /// connection.
    func close(_ code: ErrorCode?, _ reason: String) {
        let since = state.withLock { state -> UInt64? in
            guard !state.closing else { return nil }
            state.closing = true
            let now = clock.now
            state.closingSince = now
            state.closeReason = code.map { "\($0): \(reason)" } ?? reason
            return now
        }
        guard let since else { return }
        delegate?.connectionClosing(self, since: since)
        outbox.close(farewell: code.map { Message.error(code: $0, message: reason).frame })
        flushChannel()
    }

    // MARK: Pipeline events (channel thread)

    /// Bytes arrived: the peer is not silent, and is not while they are handled.
    fileprivate func willHandle(_ count: Int) {
        state.withLock { state in
            state.lastReceived = clock.now
            state.receivedBytes += count
            state.handlingFrames = true
        }
    }

    /// Silence is counted from the end of the handling, not from the read.
    fileprivate func didHandle() {
        state.withLock { state in
            state.handlingFrames = false
            state.lastReceived = clock.now
        }
    }

    fileprivate func authenticated(_ peer: PeerIdentity, channel: (any Channel)?) {
        (channel as? ThreadedChannel)?.useFullReadBuffer()
        state.withLock { $0.identity = peer }
        delegate?.connectionAuthenticated(self)
    }

    fileprivate func received(_ message: Message) {
        delegate?.connection(self, received: message)
    }

    /// A handler failed: the peer gets an error frame saying why (except after its own error).
    fileprivate func failed(_ error: any Error) {
        switch error {
        case let failure as HandshakeFailure:
            if failure.code == .identityMismatch { delegate?.connectionRefusedIdentity(self, reason: failure.reason) }
            close(failure.code, failure.reason)
        case let failure as SecureChannelError:
            let code: ErrorCode = switch failure {
            case .recordRejected, .unsealedFrame: .corruptFrame
            case .innerFrame(.frameTooLarge): .frameTooLarge
            case .innerFrame(.unknownFrameType): .unknownFrameType
            case .innerFrame(.rejectedOp): .rejectedOp
            default: .protocolError
            }
            close(code, failure.localizedDescription)
        case let reported as PeerReportedError:
            close(nil, "peer reported \(reported.code): \(reported.message)")
        case let error as WireError:
            let code: ErrorCode = switch error {
            case .frameTooLarge: .frameTooLarge
            case .unknownFrameType: .unknownFrameType
            case .rejectedOp: .rejectedOp
            default: .protocolError
            }
            close(code, error.localizedDescription)
        default:
            close(.internalError, error.localizedDescription)
        }
    }

    fileprivate func channelClosed(reason: String) {
        close(nil, reason)
        let (finalReason, onFinished) = state.withLock { ($0.closeReason ?? reason, $0.onFinished) }
        delegate?.connectionClosed(self, reason: finalReason)
        finished.signal()
        onFinished?(self)
    }
}

/// The head of a peer pipeline: counts received bytes and marks the connection busy while the
/// pipeline handles them (liveness).
private final class ReceiveActivityHandler: ChannelHandler {
    private weak var connection: Connection?

    init(_ connection: Connection) { self.connection = connection }

    func channelRead(context: ChannelHandlerContext, _ data: Any) {
        let count = (data as? [UInt8])?.count ?? 0
        connection?.willHandle(count)
        defer { connection?.didHandle() }
        context.fireChannelRead(data)
    }
}

/// The tail of a peer pipeline: hands messages, authentication, failures and the close to the
/// connection (and so to its node).
private final class ConnectionEndHandler: ChannelHandler {
    private weak var connection: Connection?

    init(_ connection: Connection) { self.connection = connection }

    func channelRead(context: ChannelHandlerContext, _ data: Any) {
        if let message = data as? Message { connection?.received(message) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, _ event: Any) {
        if let completed = event as? HandshakeCompleted { connection?.authenticated(completed.peer, channel: context.channel) }
    }

    func errorCaught(context: ChannelHandlerContext, _ error: any Error) {
        connection?.failed(error)
    }

    func channelInactive(context: ChannelHandlerContext, reason: String) {
        connection?.channelClosed(reason: reason)
    }
}

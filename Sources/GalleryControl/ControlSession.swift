import Foundation
import GalleryIO
import GalleryWire
import Synchronization

/// One command-line connection on the node's control socket: a channel on one of the node's event
/// loops (no thread of its own, however long it stays open, as `watch` does) whose pipeline takes
/// `control_request` and `heartbeat` frames, and a bounded outbox of answers and heartbeats that
/// the channel drains as the socket has room, so that a client that stops reading never blocks
/// the node. The channel's methods run on its loop.
final class ControlSession: Sendable {
    /// The session's liveness and its life.
    private struct State {
        var closing = false
        var lastReceived = DispatchTime.now().uptimeNanoseconds
        /// When the last heartbeat went out (uptime, nanoseconds).
        var lastHeartbeat: UInt64 = 0
        /// When `close` was first called (uptime, nanoseconds): the channel is closed a second
        /// later at the latest, even under a client that does not read its farewell.
        var closingSince: UInt64?
        /// Commands of this session still being carried out: the client waits, it is not silent.
        var commandsRunning = 0
        /// Watch subscriptions to end when the session ends.
        var cleanups: [@Sendable () -> Void] = []
        /// Whether the channel has closed (the cleanups ran).
        var ended = false
        /// Called with every request, on the channel's loop.
        var handle: (@Sendable (ControlSession, [UInt8]) -> Void)?
        /// Called once, when the channel has closed.
        var onEnded: (@Sendable (ControlSession) -> Void)?
    }

    /// Unique per control server.
    let id: Int
    /// The `watch` sessions of the server, which this session may join.
    let watches: ControlWatchFeed
    private let channel: StreamChannel
    private let outbox: ControlOutbox
    private let state = Mutex(State())

    /// How long a close's farewell may take before the channel is closed under it.
    static let closeGrace: UInt64 = 1_000_000_000

    /// A session over a connected socket (not yet registered with its loop).
    init(id: Int, socket: NonBlockingSocket, watches: ControlWatchFeed) {
        self.id = id
        self.watches = watches
        // Room for a few of the largest answers (a `watch` listing of a big gallery).
        let outbox = ControlOutbox(limit: 4 * Int(FrameLimits.maximum))
        self.outbox = outbox
        let reader = ControlFrameHandler()
        channel = StreamChannel(socket: socket, source: outbox, handlers: [reader])
        reader.session = self
    }

    /// Starts the channel; `handle` gets every request, on the channel's loop; `ended` is called
    /// once, when the channel has closed.
    func start(handle: @escaping @Sendable (ControlSession, [UInt8]) -> Void, ended: @escaping @Sendable (ControlSession) -> Void) {
        state.withLock { state in
            state.handle = handle
            state.onEnded = ended
        }
        channel.activate()
    }

    /// Queues an answer; a client too slow to take its answers is dropped.
    func send(_ response: ControlResponse) {
        guard let bytes = try? JSONEncoder().encode(response) else { return }
        send(Message.controlResponse(Array(bytes)))
    }

    private func send(_ message: Message) {
        switch outbox.push(message.frame, priority: message.type.priority) {
        case .queued(let wake):
            if wake { channel.execute { [channel] in channel.flush() } }
        case .full:
            close(.slowPeer, "the client does not read its answers")
        case .closed:
            break
        }
    }

    /// Runs `cleanup` when the session ends (at once if it is ending).
    func onEnd(_ cleanup: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.closing || state.ended { return true }
            state.cleanups.append(cleanup)
            return false
        }
        if now { cleanup() }
    }

    /// Counts a command of this session as started: the client is waiting, not silent.
    func commandStarted() { state.withLock { $0.commandsRunning += 1 } }

    /// Counts a command of this session as finished.
    func commandFinished() { state.withLock { $0.commandsRunning -= 1 } }

    /// Whether `close` was called: frames that arrive after it are not handled.
    var isClosing: Bool { state.withLock { $0.closing } }

    /// Sends an error frame (when a code is given), then closes. Idempotent.
    ///
    /// The channel closes once the error frame is out; under a client that does not read, `tick`
    /// closes it after `closeGrace` (no Dispatch timer: libdispatch traps when it cannot make its
    /// descriptors, which a node at its descriptor limit would hit).
    func close(_ code: ErrorCode?, _ reason: String) {
        let first = state.withLock { state -> Bool in
            guard !state.closing else { return false }
            state.closing = true
            state.closingSince = DispatchTime.now().uptimeNanoseconds
            return true
        }
        guard first else { return }
        outbox.close(farewell: code.map { Message.error(code: $0, message: reason).frame })
        channel.execute { [channel] in channel.flush() }
    }

    /// Closes the channel now, whatever waits in the outbox.
    func closeChannel() {
        channel.execute { [channel] in channel.close(reason: "closed") }
    }

    /// Liveness: a heartbeat when idle, so that the client knows the node is alive while a long
    /// command runs; a client silent past `timeout` with no command running is dropped.
    func tick(now: UInt64, heartbeatInterval: UInt64, timeout: UInt64) {
        let sentAt = outbox.lastWrite
        let (silent, closeStuck) = state.withLock { state in
            (state.commandsRunning > 0 || now <= state.lastReceived ? 0 : now - state.lastReceived,
             state.closingSince.map { now > $0 && now - $0 > Self.closeGrace } ?? false)
        }
        let idle = now > sentAt ? now - sentAt : 0
        // A client that only listens (`watch`) speaks only to answer a heartbeat: while answers
        // keep it busy, it is still asked once an interval, or it would fall silent.
        let askDue = silent >= heartbeatInterval && state.withLock { state in
            now > state.lastHeartbeat && now - state.lastHeartbeat >= heartbeatInterval
        }
        if closeStuck {
            closeChannel()
        } else if silent > timeout {
            close(.timeout, "no frame for \(silent / 1_000_000) ms")
        } else if idle >= heartbeatInterval || askDue {
            state.withLock { $0.lastHeartbeat = now }
            send(.heartbeat)
        }
    }

    // MARK: Channel events (the channel's loop)

    /// Bytes arrived: the client is not silent.
    fileprivate func received() {
        state.withLock { $0.lastReceived = DispatchTime.now().uptimeNanoseconds }
    }

    /// A whole frame arrived.
    fileprivate func take(_ frame: Frame) throws {
        if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { return }
        switch try Message(frame: frame) {
        case .controlRequest(let json):
            state.withLock { $0.handle }?(self, json)
        case .heartbeat:
            break
        case .error:
            close(nil, "closed by the client")
        case let other:
            close(.protocolError, "\(other.type) on the control socket: it takes control_request and heartbeat")
        }
    }

    /// The channel has closed: the watch subscriptions end, and the server forgets the session.
    fileprivate func channelClosed() {
        close(nil, "closed")
        let (actions, ended) = state.withLock { state -> ([@Sendable () -> Void], (@Sendable (ControlSession) -> Void)?) in
            guard !state.ended else { return ([], nil) }
            state.ended = true
            defer {
                state.cleanups.removeAll()
                state.handle = nil
                state.onEnded = nil
            }
            return (state.cleanups, state.onEnded)
        }
        for action in actions { action() }
        ended?(self)
    }
}

/// The pipeline of a control session: decodes frames (within the node's frame limit) and hands
/// each to the session; nothing after a bad frame or a close is handled.
private final class ControlFrameHandler: ChannelHandler {
    /// The session (weak: it owns the channel, which owns this handler).
    weak var session: ControlSession?
    private var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
    private var failed = false

    func channelActive(context: ChannelHandlerContext) {
        // A session refused before it started (another user) has its farewell waiting.
        context.channel?.flush()
    }

    func channelRead(context: ChannelHandlerContext, _ data: Any) {
        guard let bytes = data as? [UInt8], let session, !failed else { return }
        session.received()
        decoder.append(bytes)
        do {
            while let frame = try decoder.next() {
                if session.isClosing { return }
                try session.take(frame)
            }
        } catch {
            failed = true
            session.close(.protocolError, error.localizedDescription)
        }
    }

    func channelInactive(context: ChannelHandlerContext, reason: String) {
        session?.channelClosed()
    }
}

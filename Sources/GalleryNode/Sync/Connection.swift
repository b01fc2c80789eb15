import Foundation
import GalleryIO
import GalleryModel
import GalleryWire

/// What a connection tells its node.
protocol ConnectionDelegate: AnyObject, Sendable {
    /// The peer proved the secret; the node may start the sync session.
    func connectionAuthenticated(_ connection: Connection)
    /// A message arrived after authentication.
    func connection(_ connection: Connection, received message: Message)
    /// The connection is closed, for the reason given.
    func connectionClosed(_ connection: Connection, reason: String)
}

/// One TCP connection to a peer: the handshake, a reader thread, and a writer thread that drains
/// a bounded priority queue.
///
/// Blocking reads and writes run on the connection's own threads, never on the Swift concurrency
/// pool. `@unchecked Sendable`: every mutable property is guarded by `lock`.
final class Connection: @unchecked Sendable {
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
    /// When the connection was made (uptime, nanoseconds): the handshake deadline counts from it.
    let startedAt = DispatchTime.now().uptimeNanoseconds
    /// The socket streams (closed under a stuck writer by the liveness methods).
    let streams: StreamPair
    private let settings: HandshakeSettings
    private weak var delegate: (any ConnectionDelegate)?
    /// Guards the mutable state below.
    let lock = NSCondition()

    // Guarded by `lock`.
    private var queue: OutboundQueue
    private var closing = false
    private var closeReason: String?
    var identity: PeerIdentity?
    private var receivedBytes = 0
    private var sentBytes = 0
    var lastReceived = DispatchTime.now().uptimeNanoseconds
    /// Whether the reader is handling frames (e.g. running a long control command); the peer is
    /// not silent meanwhile, whatever it sends waits in the socket.
    var handlingFrames = false
    var lastSent = DispatchTime.now().uptimeNanoseconds
    /// When `close` was first called (uptime, nanoseconds); the streams are closed a second later
    /// at the latest, even if the writer is stuck on a peer that does not read.
    var closingSince: UInt64?
    /// Whether the writer thread has ended (it closes the streams when it does).
    private var writerFinished = false
    private var threadsRunning = 0
    /// Fetches being served, sent a chunk at a time, round robin, when nothing else is queued.
    private var bulk: [ChunkStream] = []
    private var bulkTurn = 0
    /// Signalled once both threads have ended.
    let finished = DispatchSemaphore(value: 0)

    // Reader thread only.
    private var decoder = FrameDecoder()
    private var clientHandshake: ClientHandshake?
    private var serverHandshake: ServerHandshake?

    init(id: Int, role: Role, streams: StreamPair, settings: HandshakeSettings, queueLimit: Int,
         delegate: any ConnectionDelegate) {
        self.id = id
        self.role = role
        self.remote = streams.remote
        self.streams = streams
        self.settings = settings
        self.delegate = delegate
        self.queue = OutboundQueue(limit: queueLimit)
        switch role {
        case .client: clientHandshake = ClientHandshake(settings: settings)
        case .server: serverHandshake = ServerHandshake(settings: settings)
        }
    }

    /// The authenticated peer, nil during the handshake.
    var peer: PeerIdentity? {
        lock.withLock { identity }
    }

    /// Whether the peer has completed the handshake.
    var isAuthenticated: Bool {
        lock.withLock { identity != nil }
    }

    /// Whether `close` has been called.
    var isClosing: Bool {
        lock.withLock { closing }
    }

    /// Why the connection closed ("CODE: reason" for an error it sent), once it has.
    var closeDescription: String? {
        lock.withLock { closeReason }
    }

    /// Bytes received and sent on this connection so far.
    var byteCounts: (received: Int, sent: Int) {
        lock.withLock { (receivedBytes, sentBytes) }
    }

    /// Starts the reader and writer threads (and, for a client, sends `hello`).
    func start() {
        lock.withLock { threadsRunning = 2 }
        if let hello = clientHandshake?.hello { send(hello) }
        Thread.detachNewThread { [self] in
            readLoop()
            threadFinished()
        }
        Thread.detachNewThread { [self] in
            writeLoop()
            lock.withLock {
                writerFinished = true
                lock.broadcast()
            }
            threadFinished()
        }
    }

    /// Blocks until both threads have ended.
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
        let accepted = lock.withLock { () -> Bool? in
            guard !closing else { return nil }
            guard queue.push(frame, priority: priority, exempt: backlog) else { return false }
            lock.broadcast()
            return true
        }
        if accepted == false {
            close(.slowPeer, "outbound queue over \(queue.limit) bytes")
        }
        return accepted == true
    }

    /// The most fetches one connection serves at once.
    static let maximumServedFetches = 32

    /// Starts sending the chunks of a fetch, interleaved with the other fetches served and sent
    /// only when no control or ops frame waits; false when the connection already serves the
    /// most fetches it may.
    func serve(_ stream: ChunkStream) -> Bool {
        lock.withLock {
            guard !closing, bulk.count < Self.maximumServedFetches else { return false }
            bulk.removeAll { $0.request == stream.request }
            bulk.append(stream)
            lock.broadcast()
            return true
        }
    }

    /// Stops sending the chunks of a fetch (the peer cancelled it).
    func stopServing(_ request: UInt64) {
        lock.withLock { bulk.removeAll { $0.request == request } }
    }

    /// Sends an error frame (when a code is given), then closes. Idempotent.
    ///
    /// The writer closes the streams once the error frame is out. A peer that does not read gets
    /// its socket closed anyway after a second: by the reader when it ends, by `tick` while it
    /// still waits, or by `waitUntilClosed` at a stop. No Dispatch queue or timer is used here:
    /// libdispatch makes its descriptors (epoll, eventfd, timerfd) on first use of a global queue or
    /// timer and traps when it cannot, so a node at its descriptor limit that had not used Dispatch
    /// yet died (SIGILL) the first time it closed a connection.
    func close(_ code: ErrorCode?, _ reason: String) {
        lock.withLock {
            guard !closing else { return }
            closing = true
            closingSince = DispatchTime.now().uptimeNanoseconds
            closeReason = code.map { "\($0): \(reason)" } ?? reason
            queue.removeAll()
            bulk.removeAll()
            if let code { _ = queue.push(Message.error(code: code, message: reason).frame, priority: .control) }
            lock.broadcast()
        }
    }

    // MARK: Threads

    private func threadFinished() {
        let last = lock.withLock { () -> Bool in
            threadsRunning -= 1
            return threadsRunning == 0
        }
        if last { finished.signal() }
    }

    /// What the writer sends next: queued frames, or the next chunk of a fetch being served.
    private enum Work {
        case frames([UInt8])
        case chunk(ChunkStream)
    }

    private func writeLoop() {
        writing: while true {
            let work: Work? = lock.withLock {
                while queue.isEmpty && bulk.isEmpty && !closing { lock.wait() }
                if !queue.isEmpty { return .frames(queue.popBytes(maximumBytes: 256 << 10)) }
                if closing || bulk.isEmpty { return nil }
                bulkTurn = (bulkTurn + 1) % bulk.count
                return .chunk(bulk[bulkTurn])
            }
            let bytes: [UInt8]
            switch work {
            case nil:
                break writing
            case .frames(let frames):
                bytes = frames
            case .chunk(let stream):
                // Read outside the lock: ops and heartbeats queued meanwhile go out right after it.
                do {
                    guard let frame = try stream.nextFrame() else {
                        stopServing(stream.request)
                        continue writing
                    }
                    // The fetch stops counting against `maximumServedFetches` before its last chunk
                    // is written, so that the requester, which may ask again as soon as that chunk
                    // arrives, never finds the slot still taken.
                    if stream.isFinished { stopServing(stream.request) }
                    bytes = frame.encoded(checksummed: true)
                } catch {
                    stopServing(stream.request)
                    send(.fetchError(id: stream.request, code: .internalError, message: "cannot read the blob: \(error.localizedDescription)"))
                    continue writing
                }
            }
            guard write(bytes) else {
                close(nil, "write failed")
                break writing
            }
            lock.withLock {
                lastSent = DispatchTime.now().uptimeNanoseconds
                sentBytes += bytes.count
            }
        }
        streams.close()
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = streams.output.write(buffer.baseAddress! + offset, maxLength: buffer.count - offset)
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    private func readLoop() {
        // Small until the peer is authenticated: a connection still in its handshake costs little.
        var buffer = [UInt8](repeating: 0, count: FrameLimits.handshakeMaximum)
        var reason = "closed by peer"
        reading: while true {
            if buffer.count < 64 << 10 && decoder.checksummed { buffer = [UInt8](repeating: 0, count: 64 << 10) }
            let count = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 {
                if count < 0 { reason = streams.input.streamError.map { "read failed: \($0.localizedDescription)" } ?? "read failed" }
                break
            }
            lock.withLock {
                lastReceived = DispatchTime.now().uptimeNanoseconds
                receivedBytes += count
                handlingFrames = true
            }
            // Silence is counted from the end of the handling, not from the read.
            defer {
                lock.withLock {
                    handlingFrames = false
                    lastReceived = DispatchTime.now().uptimeNanoseconds
                }
            }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            do {
                while let frame = try decoder.next() {
                    if lock.withLock({ closing }) { break reading }
                    try handle(frame)
                }
            } catch let failure as HandshakeFailure {
                close(failure.code, failure.reason)
                reason = "\(failure.code): \(failure.reason)"
                break
            } catch let error as WireError {
                let code: ErrorCode = switch error {
                case .frameTooLarge: .frameTooLarge
                case .unknownFrameType: .unknownFrameType
                case .rejectedOp: .rejectedOp
                case .checksumMismatch: .corruptFrame
                default: .protocolError
                }
                close(code, error.localizedDescription)
                reason = "\(code): \(error.localizedDescription)"
                break
            } catch is ConnectionClosed {
                break
            } catch {
                close(.internalError, error.localizedDescription)
                break
            }
        }
        // The writer closes the streams once it has sent what `close` queued (an error frame); a
        // writer stuck on a peer that does not read has them closed under it after `closeGrace`.
        close(nil, reason)
        lock.withLock {
            let deadline = Date().addingTimeInterval(Double(Self.closeGrace) / 1e9)
            while !writerFinished && lock.wait(until: deadline) {}
        }
        streams.close()
        let finalReason = lock.withLock { closeReason ?? reason }
        delegate?.connectionClosed(self, reason: finalReason)
    }

    /// Takes one frame: the handshake until authenticated, then messages for the node.
    private func handle(_ frame: Frame) throws {
        // A frame of a type this version does not know is skipped when its sender marked it so.
        if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { return }
        let message = try Message(frame: frame)
        if case .error(let code, let text) = message {
            close(nil, "peer reported \(code): \(text)")
            throw ConnectionClosed()
        }
        if lock.withLock({ identity != nil }) {
            switch message {
            case .hello, .welcome, .auth, .authOK:
                throw WireError.unexpected("\(message.type) after authentication")
            default:
                delegate?.connection(self, received: message)
            }
            return
        }
        var peer: PeerIdentity?
        if var handshake = clientHandshake {
            switch try handshake.receive(message) {
            case .send(let reply): send(reply)
            case .done(let identity): peer = identity
            }
            clientHandshake = handshake
        } else if var handshake = serverHandshake {
            switch try handshake.receive(message) {
            case .send(let reply): send(reply)
            case .sendAndFinish(let reply, let identity):
                send(reply)
                peer = identity
            }
            serverHandshake = handshake
        }
        if let peer {
            // From here on every frame, both ways, carries a checksum trailer: the frames queued
            // before (the last handshake reply) keep the plain layout.
            decoder.maximumPayload = Int(settings.maximumFrameSize)
            decoder.checksummed = true
            lock.withLock {
                queue.sealing = true
                identity = peer
            }
            delegate?.connectionAuthenticated(self)
        }
    }
}

/// Thrown to stop reading after the peer sent an error frame.
private struct ConnectionClosed: Error {}

import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GalleryWire

/// One command-line connection on the node's control socket: a reader thread that takes
/// `control_request` and `heartbeat` frames, and a writer thread that drains a bounded queue of
/// answers and heartbeats, so that a client that stops reading never blocks the node.
///
/// `@unchecked Sendable`: every mutable property is guarded by `lock`.
final class ControlSession: @unchecked Sendable {
    /// Unique per control server.
    let id: Int
    private let streams: StreamPair
    private let lock = NSCondition()

    // Guarded by `lock`.
    private var queue: OutboundQueue
    private var closing = false
    private var lastReceived = DispatchTime.now().uptimeNanoseconds
    private var lastSent = DispatchTime.now().uptimeNanoseconds
    /// When `close` was first called (uptime, nanoseconds): the streams are closed a second later
    /// at the latest, even under a writer stuck on a client that does not read.
    private var closingSince: UInt64?
    /// Whether the writer thread has ended (it closes the streams when it does).
    private var writerFinished = false
    /// Threads of this session still running; the last one to end runs the cleanups.
    private var threadsRunning = 2
    /// Commands of this session still being carried out: the client waits, it is not silent.
    private var commandsRunning = 0
    /// Watch observers to remove from the node when the session ends.
    private var cleanups: [@Sendable () -> Void] = []

    init(id: Int, streams: StreamPair) {
        self.id = id
        self.streams = streams
        // Room for a few of the largest answers (a `watch` listing of a big gallery).
        self.queue = OutboundQueue(limit: 4 * Int(FrameLimits.maximum))
    }

    /// Starts the reader and writer threads; `handle` gets every request, on the reader thread;
    /// `ended` is called once, when both threads are done.
    func start(handle: @escaping @Sendable (ControlSession, [UInt8]) -> Void, ended: @escaping @Sendable (ControlSession) -> Void) {
        // No Dispatch group or queue: libdispatch makes its descriptors on first use and traps
        // when it cannot, which a node at its descriptor limit would hit here.
        let threadEnded: @Sendable () -> Void = { [self] in
            let actions = lock.withLock { () -> [@Sendable () -> Void]? in
                threadsRunning -= 1
                guard threadsRunning == 0 else { return nil }
                defer { cleanups.removeAll() }
                return cleanups
            }
            guard let actions else { return }
            for action in actions { action() }
            ended(self)
        }
        Thread.detachNewThread { [self] in
            readLoop(handle)
            threadEnded()
        }
        Thread.detachNewThread { [self] in
            writeLoop()
            lock.withLock {
                writerFinished = true
                lock.broadcast()
            }
            threadEnded()
        }
    }

    /// Queues an answer; a client too slow to take its answers is dropped.
    func send(_ response: ControlResponse) {
        guard let bytes = try? JSONEncoder().encode(response) else { return }
        send(Message.controlResponse(Array(bytes)))
    }

    private func send(_ message: Message) {
        let accepted = lock.withLock { () -> Bool? in
            guard !closing else { return nil }
            guard queue.push(message.frame, priority: message.type.priority) else { return false }
            lock.broadcast()
            return true
        }
        if accepted == false { close(.slowPeer, "the client does not read its answers") }
    }

    /// Runs `cleanup` when the session ends (at once if it has ended).
    func onEnd(_ cleanup: @escaping @Sendable () -> Void) {
        let ended = lock.withLock { () -> Bool in
            if closing { return true }
            cleanups.append(cleanup)
            return false
        }
        if ended { cleanup() }
    }

    /// Counts a command of this session as started: the client is waiting, not silent.
    func commandStarted() { lock.withLock { commandsRunning += 1 } }

    /// Counts a command of this session as finished.
    func commandFinished() { lock.withLock { commandsRunning -= 1 } }

    /// Sends an error frame (when a code is given), then closes. Idempotent.
    ///
    /// The writer closes the streams once the error frame is out; a client that does not read gets
    /// its socket closed anyway after a second, by the reader when it ends or by `tick` while it
    /// still waits (no Dispatch timer: see `start`).
    func close(_ code: ErrorCode?, _ reason: String) {
        lock.withLock {
            guard !closing else { return }
            closing = true
            closingSince = DispatchTime.now().uptimeNanoseconds
            queue.removeAll()
            if let code { _ = queue.push(Message.error(code: code, message: reason).frame, priority: .control) }
            lock.broadcast()
        }
    }

    /// Liveness: a heartbeat when idle, so that the client knows the node is alive while a long
    /// command runs; a client silent past `timeout` with no command running is dropped.
    func tick(now: UInt64, heartbeatInterval: UInt64, timeout: UInt64) {
        let (silent, idle, closeStuck) = lock.withLock {
            (commandsRunning > 0 || now <= lastReceived ? 0 : now - lastReceived, now > lastSent ? now - lastSent : 0,
             closingSince.map { now > $0 && now - $0 > 1_000_000_000 } ?? false)
        }
        if closeStuck {
            streams.close()
        } else if silent > timeout {
            close(.timeout, "no frame for \(silent / 1_000_000) ms")
        } else if idle >= heartbeatInterval {
            send(.heartbeat)
        }
    }

    private func writeLoop() {
        while true {
            let bytes: [UInt8]? = lock.withLock {
                while queue.isEmpty && !closing { lock.wait() }
                return queue.isEmpty ? nil : queue.popBytes(maximumBytes: 256 << 10)
            }
            guard let bytes else { break }
            let written = bytes.withUnsafeBufferPointer { buffer in
                buffer.isEmpty || streams.output.write(buffer.baseAddress!, maxLength: buffer.count) == buffer.count
            }
            guard written else {
                close(nil, "write failed")
                break
            }
            lock.withLock { lastSent = DispatchTime.now().uptimeNanoseconds }
        }
        streams.close()
    }

    private func readLoop(_ handle: (ControlSession, [UInt8]) -> Void) {
        var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        reading: while true {
            let count = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 { break }
            lock.withLock { lastReceived = DispatchTime.now().uptimeNanoseconds }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            do {
                while let frame = try decoder.next() {
                    if lock.withLock({ closing }) { break reading }
                    if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { continue }
                    switch try Message(frame: frame) {
                    case .controlRequest(let json): handle(self, json)
                    case .heartbeat: break
                    case .error: break reading
                    case let other:
                        close(.protocolError, "\(other.type) on the control socket: it takes control_request and heartbeat")
                        break reading
                    }
                }
            } catch {
                close(.protocolError, error.localizedDescription)
                break
            }
        }
        close(nil, "closed by the client")
        // The writer closes the streams once it has sent what `close` queued; under a writer stuck
        // on a client that does not read, they are closed after a second.
        lock.withLock {
            let deadline = Date().addingTimeInterval(1)
            while !writerFinished && lock.wait(until: deadline) {}
        }
        streams.close()
    }
}

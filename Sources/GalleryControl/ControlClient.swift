import Foundation
import GalleryIO
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import GalleryWire

/// Sends one command to the node serving a directory, over its local control socket
/// (`DIR/control.sock`), and returns the node's answers.
///
/// It never waits for a node that is not alive: connecting is bounded, and every wait for an
/// answer ends once `silenceLimit` passes without a frame from the node (the node sends a
/// heartbeat every second while a command runs), however long the command itself takes.
package enum ControlClient {
    /// Why a command did not get an answer.
    package enum Failure: Error, Hashable, Sendable, LocalizedError {
        /// No node serves the directory, or it cannot be reached.
        case notRunning(String)
        /// The node refused this user.
        case authRefused(String)
        /// The socket is served by a process of another user: it is not this user's node, and
        /// nothing was sent to it.
        case foreignOwner(String)
        /// The connection failed in another way.
        case failed(String)

        package var errorDescription: String? {
            switch self {
            case .notRunning(let reason), .authRefused(let reason), .foreignOwner(let reason), .failed(let reason): reason
            }
        }
    }

    /// How long the client waits for any frame (an answer or a heartbeat) before it gives up on
    /// the node.
    package static let silenceLimit: Duration = .seconds(5)

    /// The control socket of the node serving `directory`.
    package static func socketPath(of directory: URL) -> String {
        directory.appendingPathComponent("control.sock").path
    }

    /// Sends `request` and returns the first answer. Waits as long as the node is alive (it sends
    /// heartbeats while it works), or at most `timeout` when one is given.
    ///
    /// The answer is read, and heartbeats answered, on the calling thread: with one answer to
    /// take, nothing can keep the caller from the socket, so no reader thread is started (one
    /// thread start less on the path of every command; `stream` needs one).
    package static func send(_ request: ControlRequest, to directory: URL, timeout: Duration? = nil, nodeUser: uid_t? = nil) throws(Failure) -> ControlResponse {
        let fd = try connect(to: directory, nodeUser: nodeUser)
        defer { POSIX.closeDescriptor(fd) }
        var channel = LocalFrameChannel(fd: fd)
        let sent = try send(request, over: channel)
        let end = timeout.map { ContinuousClock.now + $0 }
        while true {
            let message: Message?
            do throws(LocalFrameChannel.ReceiveFailure) {
                message = try channel.receive(silenceLimit: silenceLimit, end: end)
            } catch {
                if case .ended = error { throw .failed("no answer from the node of \(directory.path) in time") }
                throw failure(error, sent: sent, directory: directory)
            }
            guard let message else { throw .failed(sent ? "the node closed the connection" : closedEarly(directory)) }
            switch message {
            case .heartbeat:
                _ = channel.send(.heartbeat)
            case .controlResponse(let bytes):
                return try decode(bytes)
            case .error(let code, let text):
                throw failure(code, text, directory: directory)
            default:
                break
            }
        }
    }

    /// Sends `request` and passes every answer to `handler` until it returns false, the node closes
    /// the connection, or `timeout` (if any) passes; throws when the node falls silent for
    /// `silenceLimit`.
    ///
    /// Nothing is sent unless the process at the other end of the socket runs as `nodeUser` (this
    /// process's effective user when nil), as the kernel reports it: a socket planted by another
    /// user would otherwise receive the command (file paths included) and forge its answers.
    package static func stream(
        _ request: ControlRequest, to directory: URL, timeout: Duration?, nodeUser: uid_t? = nil,
        _ handler: (ControlResponse) -> Bool
    ) throws(Failure) {
        let fd = try connect(to: directory, nodeUser: nodeUser)
        defer { POSIX.closeDescriptor(fd) }
        let sent = try send(request, over: LocalFrameChannel(fd: fd))
        // Frames are read, and heartbeats answered, on a thread of their own: however long
        // `handler` takes over an answer (a listing of 100,000 items), the node hears from us.
        let reader = ControlAnswerReader(fd: fd, silenceLimit: silenceLimit, end: timeout.map { ContinuousClock.now + $0 })
        defer { reader.stop() }
        while true {
            switch reader.next() {
            case .failed(.ended):
                return
            case .failed(let error):
                throw failure(error, sent: sent, directory: directory)
            case .closed:
                throw .failed(sent ? "the node closed the connection" : closedEarly(directory))
            case .message(.controlResponse(let bytes)):
                if !handler(try decode(bytes)) { return }
            case .message(.error(let code, let text)):
                throw failure(code, text, directory: directory)
            case .message:
                break
            }
        }
    }

    /// Connects to the socket of the node serving `directory` and checks that the process at the
    /// other end runs as `nodeUser` (this process's effective user when nil); returns the socket.
    private static func connect(to directory: URL, nodeUser: uid_t?) throws(Failure) -> Int32 {
        let path = socketPath(of: directory)
        if let problem = UnixSocket.pathProblem(path) { throw .failed("cannot reach the node's socket \(path): \(problem)") }
        let fd: Int32
        do {
            fd = try UnixSocket.connect(to: path, deadline: .now + silenceLimit)
        } catch {
            var info = stat()
            if lstat(path, &info) != 0 {
                // A node's directory is its user's alone (mode 0700): another user cannot even
                // see whether the socket is there.
                if errno == EACCES {
                    throw .authRefused("the node of \(directory.path) refused this user: the directory belongs to the user running the node")
                }
                throw .notRunning("no node is running on \(directory.path) (no \(path))")
            }
            if access(path, R_OK | W_OK) != 0 && (errno == EACCES || errno == EPERM) {
                throw .authRefused("the node of \(directory.path) refused this user: \(path) belongs to the user running the node")
            }
            throw .notRunning("the node of \(directory.path) is not running or unreachable: \(error.localizedDescription)")
        }
        let expected = nodeUser ?? geteuid()
        let owner = UnixSocket.peerUserID(fd)
        guard owner == expected else {
            POSIX.closeDescriptor(fd)
            let who = owner.map { "user \($0)" } ?? "a process whose user cannot be read"
            throw .foreignOwner(
                "refusing \(path): it is served by \(who), not by this user (\(expected)); nothing was sent. Stop that process or remove the socket")
        }
        return fd
    }

    /// Stamps and sends `request`; false when the connection was gone (a node that refuses this
    /// user closes at once: its error frame is still read after).
    private static func send(_ request: ControlRequest, over channel: LocalFrameChannel) throws(Failure) -> Bool {
        var request = request
        request.sent = Date().timeIntervalSince1970
        guard let json = try? JSONEncoder().encode(request) else { throw .failed("cannot encode the request") }
        return channel.send(.controlRequest(Array(json)))
    }

    /// An answer's JSON, decoded.
    private static func decode(_ bytes: [UInt8]) throws(Failure) -> ControlResponse {
        guard let response = try? JSONDecoder().decode(ControlResponse.self, from: Data(bytes)) else {
            throw .failed("malformed answer from the node")
        }
        return response
    }

    /// What a failed read means to the caller (`ended` aside, which each caller takes its way).
    private static func failure(_ error: LocalFrameChannel.ReceiveFailure, sent: Bool, directory: URL) -> Failure {
        switch error {
        case .silent:
            .failed("no answer from the node of \(directory.path) for \(silenceLimit.components.seconds) s (is it paused or hung?)")
        case .ended:
            .failed("no answer from the node of \(directory.path) in time")
        case .broken(let reason):
            .failed(sent ? "connection to the node failed: \(reason)" : closedEarly(directory))
        }
    }

    /// The node's error frame as a failure.
    private static func failure(_ code: ErrorCode, _ text: String, directory: URL) -> Failure {
        if code == .authFailed { return .authRefused("the node of \(directory.path) refused this user: \(text)") }
        return .failed("the node closed the connection: \(code): \(text)")
    }

    private static func closedEarly(_ directory: URL) -> String {
        "the node of \(directory.path) closed the connection before taking the command"
    }
}

/// Frames over a connected local socket, read with a bound on silence.
struct LocalFrameChannel {
    /// Why no message was received.
    enum ReceiveFailure: Error {
        /// Nothing arrived for the silence limit.
        case silent
        /// The caller's own deadline passed.
        case ended
        /// The connection or a frame is broken.
        case broken(String)
    }

    let fd: Int32
    private var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)

    init(fd: Int32) {
        self.fd = fd
    }

    /// Writes a whole frame; false when the connection is gone.
    func send(_ message: Message) -> Bool {
        let bytes = message.frame.encoded
        return bytes.withUnsafeBytes { POSIX.sendAll(fd, $0.baseAddress!, $0.count) == nil }
    }

    /// The next message (unknown ignorable frames skipped), nil at the end of the stream.
    mutating func receive(silenceLimit: Duration, end: ContinuousClock.Instant?) throws(ReceiveFailure) -> Message? {
        var silentUntil = ContinuousClock.now + silenceLimit
        while true {
            do {
                if let frame = try decoder.next() {
                    if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { continue }
                    return try Message(frame: frame)
                }
            } catch {
                throw .broken(error.localizedDescription)
            }
            let deadline = end.map { min($0, silentUntil) } ?? silentUntil
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, POSIX.pollTimeout(until: deadline))
            if ready < 0 {
                if errno == EINTR { continue }
                throw .broken(POSIX.describe("poll", errno: errno))
            }
            if ready == 0 {
                if let end, ContinuousClock.now >= end { throw .ended }
                if ContinuousClock.now >= silentUntil { throw .silent }
                continue
            }
            let result = buffer.withUnsafeMutableBytes { POSIX.receive(fd, $0.baseAddress!, $0.count) }
            switch result {
            case .success(0):
                return nil
            case .success(let count):
                silentUntil = ContinuousClock.now + silenceLimit
                buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            case .failure(let failure):
                throw .broken(POSIX.describe("recv", errno: failure.code))
            }
        }
    }
}

import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import GalleryWire

/// The node's local control socket (`DIR/control.sock`, protocol.md section 15): the only way to
/// command a node. It is a Unix domain socket of mode 0600, and every connection's user, as the
/// kernel reports it, must be the node's own user; others get `error auth_failed` and are closed.
/// Peers on the TCP port can never send commands.
///
/// `@unchecked Sendable`: every mutable property is guarded by `lock`.
public final class ControlServer: @unchecked Sendable {
    /// The socket's path.
    public let path: String
    private let node: SyncNode
    private let allowedUser: uid_t
    private let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let lock = NSCondition()

    // Guarded by `lock`.
    private var sessions: [Int: ControlSession] = [:]
    private var nextSessionID = 0
    private var stopped = false
    private var acceptLoopRunning = true

    /// The longest a request may have waited in the socket before the node read it: the command
    /// line gives up after `ControlClient.silenceLimit` without a frame, and a request that waited
    /// longer (the node was paused) is refused unread rather than carried out for nobody.
    static let stalenessLimit: TimeInterval = 3

    /// Listens on `path` (replacing a stale socket) for commands to `node`.
    ///
    /// - Parameter allowedUser: The user allowed to connect; the node's own (`getuid()`) when nil.
    public init(node: SyncNode, path: String, allowedUser: uid_t? = nil) throws(TransportError) {
        self.node = node
        self.path = path
        self.allowedUser = allowedUser ?? getuid()
        descriptor = try UnixSocket.listen(at: path)
        switch POSIX.makePipe() {
        case .success(let ends):
            (wakeRead, wakeWrite) = ends
        case .failure(let failure):
            POSIX.closeDescriptor(descriptor)
            unlink(path)
            throw .bind(path, POSIX.describe("pipe", errno: failure.code))
        }
        Thread.detachNewThread { [self] in
            acceptLoop()
            lock.withLock {
                acceptLoopRunning = false
                lock.broadcast()
            }
        }
        Thread.detachNewThread { [self] in livenessLoop() }
    }

    /// Stops accepting, closes every session, and removes the socket. Idempotent.
    public func stop() {
        let open = lock.withLock { () -> [ControlSession]? in
            guard !stopped else { return nil }
            stopped = true
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
            while acceptLoopRunning { lock.wait() }
            lock.broadcast()
            return Array(sessions.values)
        }
        guard let open else { return }
        for session in open { session.close(.shuttingDown, "node stopping") }
        POSIX.closeDescriptor(descriptor)
        POSIX.closeDescriptor(wakeRead)
        POSIX.closeDescriptor(wakeWrite)
        unlink(path)
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            var entries = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 2, -1)
            if ready < 0 && errno != EINTR { return }
            if entries[1].revents != 0 { return }
            guard entries[0].revents != 0 else { continue }
            switch UnixSocket.accept(descriptor) {
            case .success(let fd):
                adopt(fd)
            case .failure(let failure) where [EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED].contains(failure.code):
                continue
            case .failure:
                // Out of descriptors (or memory): the pending connection stays queued, so wait a
                // little instead of spinning on a socket that stays readable.
                usleep(100_000)
            }
        }
    }

    /// Checks who connected and starts a session for the node's own user; refuses anyone else.
    private func adopt(_ fd: Int32) {
        let streams = StreamPair(socket: fd, remote: "control")
        let user = UnixSocket.peerUserID(fd)
        let session = lock.withLock { () -> ControlSession? in
            guard !stopped else { return nil }
            nextSessionID += 1
            let session = ControlSession(id: nextSessionID, streams: streams)
            sessions[session.id] = session
            return session
        }
        guard let session else {
            streams.close()
            return
        }
        if user != allowedUser {
            // Closed before its reader starts: not one of its frames is taken.
            let who = user.map { "user \($0)" } ?? "a process whose user cannot be read"
            node.configuration.log("\(node.configuration.name): control socket: refused \(who) (the node runs as user \(allowedUser))")
            session.close(.authFailed, "\(who) may not control this node: only user \(allowedUser) may")
        }
        session.start(
            handle: { [node] session, json in node.takeControlRequest(json, from: session) },
            ended: { [self] session in _ = lock.withLock { sessions.removeValue(forKey: session.id) } })
    }

    /// Heartbeats to idle sessions (at least once a second, whatever the node's peer interval),
    /// and drops silent ones.
    private func livenessLoop() {
        let interval = UInt64(min(max(node.configuration.heartbeatInterval.nanoseconds, 1_000_000), 1_000_000_000))
        let timeout = UInt64(max(node.configuration.peerTimeout.nanoseconds, 1_000_000))
        while true {
            let open = lock.withLock { () -> [ControlSession]? in
                if stopped { return nil }
                _ = lock.wait(until: Date().addingTimeInterval(Double(interval) / 1e10))
                return stopped ? nil : Array(sessions.values)
            }
            guard let open else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            for session in open { session.tick(now: now, heartbeatInterval: interval, timeout: timeout) }
        }
    }
}

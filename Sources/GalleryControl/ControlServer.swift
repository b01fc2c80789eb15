import Foundation
import GalleryIO
import GalleryNode
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The node's local control socket (`DIR/control.sock`, protocol.md section 15): the only way to
/// command a node. It is a Unix domain socket of mode 0600, and every connection's user, as the
/// kernel reports it, must be the node's own user; others get `error auth_failed` and are closed.
/// Peers on the TCP port can never send commands.
///
/// Accepting, every session's reads and writes, and the liveness timer run on the node's event
/// loops (one loop of the server's own when the node has none: threaded I/O, or not started), so
/// the node's threads do not grow with command-line sessions, long-lived `watch`es included.
package final class ControlServer: Sendable {
    /// The open sessions by number, and whether the server stopped or ticks.
    private struct Sessions {
        var byID: [Int: ControlSession] = [:]
        var nextID = 0
        var stopped = false
        /// Whether the liveness timer runs: only while a session is open, so that an idle node
        /// wakes for nothing here.
        var ticking = false
    }

    /// The socket's path.
    package let path: String
    private let node: SyncNode
    private let allowedUser: uid_t
    private let loops: EventLoopGroup
    /// Whether `loops` were made for this server (and end with it).
    private let ownsLoops: Bool
    private let listener: LoopListener
    private let watches: ControlWatchFeed
    private let sessions = ConditionLock(Sessions())
    /// Carries out the commands, on threads parked between them.
    package let dispatch: ControlDispatch

    /// The longest a request may have waited in the socket before the node read it: the command
    /// line gives up after `ControlClient.silenceLimit` without a frame, and a request that waited
    /// longer (the node was paused) is refused unread rather than carried out for nobody.
    static let stalenessLimit: TimeInterval = 3

    /// Listens on `path` (replacing a stale socket) for commands to `node`, on the node's event
    /// loops when it runs on them.
    ///
    /// - Parameter allowedUser: The user allowed to connect; the node's own (`getuid()`) when nil.
    package init(node: SyncNode, path: String, allowedUser: uid_t? = nil) throws(TransportError) {
        self.node = node
        self.path = path
        self.allowedUser = allowedUser ?? getuid()
        watches = ControlWatchFeed(node: node)
        dispatch = ControlDispatch(node: node)
        if let shared = node.ioLoops {
            loops = shared
            ownsLoops = false
        } else {
            loops = try EventLoopGroup(name: "gallery-control", count: 1)
            ownsLoops = true
        }
        let descriptor: Int32
        do {
            descriptor = try UnixSocket.listen(at: path)
        } catch {
            if ownsLoops { loops.shutdown() }
            throw error
        }
        listener = LoopListener(listening: descriptor, loop: loops.loops[0])
        listener.start(
            accepted: { [self] fd, _ in adopt(fd) },
            // Out of descriptors (or memory): the pending connection stays queued; wait a little
            // instead of spinning on a socket that stays readable.
            failed: { _ in 100_000_000 })
    }

    /// Stops accepting, closes every session (waiting a second at most for their farewells), and
    /// removes the socket. Idempotent.
    package func stop() {
        let open = sessions.withLock { sessions -> [ControlSession]? in
            guard !sessions.stopped else { return nil }
            sessions.stopped = true
            return Array(sessions.byID.values)
        }
        guard let open else { return }
        listener.close()
        for session in open { session.close(.shuttingDown, "node stopping") }
        let deadline = Date().addingTimeInterval(Double(ControlSession.closeGrace) / 1e9)
        _ = sessions.withLock(waitingUntil: deadline) { $0.byID.isEmpty ? () : nil }
        let left = sessions.withLock { Array($0.byID.values) }
        for session in left { session.closeChannel() }
        if ownsLoops { loops.shutdown() }
        unlink(path)
    }

    /// Checks who connected and starts a session for the node's own user; refuses anyone else.
    /// On the accepting loop.
    private func adopt(_ fd: Int32) {
        let user = UnixSocket.peerUserID(fd)
        let socket = NonBlockingSocket(descriptor: fd, remote: "control", loop: loops.next())
        let session = sessions.withLock { sessions -> ControlSession? in
            guard !sessions.stopped else { return nil }
            sessions.nextID += 1
            let session = ControlSession(id: sessions.nextID, socket: socket, watches: watches)
            sessions.byID[session.id] = session
            return session
        }
        let startTicking = sessions.withLock { sessions -> Bool in
            defer { sessions.ticking = true }
            return !sessions.ticking
        }
        if startTicking { scheduleLiveness() }
        guard let session else {
            socket.loop.execute { socket.close() }
            return
        }
        if user != allowedUser {
            // Closed before its channel starts: not one of its frames is taken.
            let who = user.map { "user \($0)" } ?? "a process whose user cannot be read"
            node.configuration.log("\(node.configuration.name): control socket: refused \(who) (the node runs as user \(allowedUser))")
            session.close(.authFailed, "\(who) may not control this node: only user \(allowedUser) may")
        }
        session.start(
            handle: { [dispatch] session, json in dispatch.take(json, from: session) },
            ended: { [self] session in
                sessions.withLock { _ = $0.byID.removeValue(forKey: session.id) }
                sessions.broadcast()
            })
    }

    /// Heartbeats to idle sessions (at least once a second, whatever the node's peer interval),
    /// and drops silent ones: a timer on the accepting loop, ten times per heartbeat interval,
    /// while any session is open (the next session starts it again).
    private func scheduleLiveness() {
        let interval = UInt64(min(max(node.configuration.heartbeatInterval.nanoseconds, 1_000_000), 1_000_000_000))
        let timeout = UInt64(max(node.configuration.peerTimeout.nanoseconds, 1_000_000))
        loops.loops[0].schedule(after: interval / 10) { [weak self] in
            guard let self else { return }
            let open = sessions.withLock { sessions -> [ControlSession]? in
                guard !sessions.stopped && !sessions.byID.isEmpty else {
                    sessions.ticking = false
                    return nil
                }
                return Array(sessions.byID.values)
            }
            guard let open else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            for session in open { session.tick(now: now, heartbeatInterval: interval, timeout: timeout) }
            scheduleLiveness()
        }
    }
}

import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Unix domain stream sockets on a path: the node's local control socket (protocol.md, section 15).
///
/// A socket is made mode 0600 before it is bound (never chmod by path, which would follow a
/// symlink planted there), checked, and only then listens. Connecting never blocks past its deadline (a full backlog waits,
/// bounded). The connecting process's user is read from the kernel (`SO_PEERCRED` on Linux,
/// `getpeereid` on Darwin).
package enum UnixSocket {
    /// The longest path `sockaddr_un.sun_path` holds (its size less the terminating NUL).
    static var maximumPathLength: Int {
        MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
    }

    /// Why a path cannot name a socket, or nil when it can.
    package static func pathProblem(_ path: String) -> String? {
        let length = path.utf8.count
        if length > maximumPathLength {
            return "the path is \(length) bytes, longer than the \(maximumPathLength) a socket path may have on this system; use a shorter directory"
        }
        if path.utf8.contains(0) { return "the socket path contains a NUL byte" }
        return nil
    }

    /// Calls `body` with `path` as a socket address; `pathProblem` must have passed.
    private static func withAddress<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        #if canImport(Darwin)
        address.sun_len = UInt8(MemoryLayout<sockaddr_un>.size)
        address.sun_family = sa_family_t(AF_UNIX)
        #else
        address.sun_family = sa_family_t(AF_UNIX)
        #endif
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Makes a listening socket at `path`, mode 0600, replacing a stale socket left there by a node
    /// that was killed (the caller holds the directory's lock, so no live node uses it). Anything at
    /// `path` that is not a socket is left alone and refused. The descriptor is non-blocking.
    ///
    /// - Parameter whenBound: Called right after the bind, before the check of what the path names
    ///   (tests: a path swapped for a symlink in that window).
    package static func listen(at path: String, backlog: Int32 = 128, whenBound: (() -> Void)? = nil) throws(TransportError) -> Int32 {
        _ = POSIX.ignoreSIGPIPE
        if let problem = pathProblem(path) { throw .bind(path, problem) }
        var existing = stat()
        if lstat(path, &existing) == 0 {
            guard existing.st_mode & S_IFMT == S_IFSOCK else {
                throw .bind(path, "it exists and is not a socket; it was left untouched")
            }
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .bind(path, POSIX.describe("cannot remove the stale socket", errno: errno))
            }
        }
        let fd: Int32
        switch POSIX.makeSocket(family: AF_UNIX) {
        case .success(let made): fd = made
        case .failure(let failure): throw .bind(path, POSIX.describe("socket", errno: failure.code))
        }
        func fail(_ what: String, _ code: Int32) -> TransportError {
            POSIX.closeDescriptor(fd)
            return .bind(path, POSIX.describe(what, errno: code))
        }
        // The mode is set on the socket before it has a name, never by path: a path can be
        // swapped for a symlink between bind and chmod by whoever can write the directory, and
        // chmod would follow it. Linux gives the bound file the socket's own mode (less the
        // umask); Darwin does not take fchmod on a socket, so the umask does it there.
        #if canImport(Darwin)
        let previousMask = umask(0o177)
        let bound = withAddress(path, { bind(fd, $0, $1) })
        let bindError = errno
        umask(previousMask)
        if bound != 0 { throw fail("bind", bindError) }
        #else
        if fchmod(fd, 0o600) != 0 { throw fail("fchmod", errno) }
        if withAddress(path, { bind(fd, $0, $1) }) != 0 { throw fail("bind", errno) }
        #endif
        whenBound?()
        // Not listening yet: nobody is in. What the path names now must be a socket of this user
        // that only this user may open; anything else (it was replaced) is refused and left alone.
        if let problem = boundProblem(path) {
            POSIX.closeDescriptor(fd)
            throw .bind(path, problem)
        }
        if Glibc_or_Darwin.listen(fd, backlog) != 0 {
            let code = errno
            unlink(path)
            throw fail("listen", code)
        }
        let code = POSIX.setNonBlocking(fd, true)
        if code != 0 {
            unlink(path)
            throw fail("fcntl", code)
        }
        return fd
    }

    /// Why the file at `path`, just bound, is not a socket of this user of mode 0600; nil when it
    /// is. A socket of this user with another mode (an odd umask) is removed.
    private static func boundProblem(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return POSIX.describe("lstat after bind", errno: errno) }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            return "it was replaced by something that is not a socket right after the bind; it was left untouched"
        }
        guard info.st_uid == geteuid() else {
            return "it was replaced by a socket of user \(info.st_uid) right after the bind; it was left untouched"
        }
        let mode = info.st_mode & 0o777
        guard mode == 0o600 else {
            unlink(path)
            return "the socket was made with mode \(String(mode, radix: 8)), not 600: the umask takes the owner's read or write"
        }
        return nil
    }

    /// Connects to the socket at `path` by `deadline`; the descriptor returned is blocking.
    /// A missing socket or one nobody listens on fails at once (`ENOENT`, `ECONNREFUSED`).
    package static func connect(to path: String, deadline: ContinuousClock.Instant) throws(TransportError) -> Int32 {
        _ = POSIX.ignoreSIGPIPE
        if let problem = pathProblem(path) { throw .connect(path, problem) }
        while true {
            let fd: Int32
            switch POSIX.makeSocket(family: AF_UNIX) {
            case .success(let made): fd = made
            case .failure(let failure): throw .connect(path, POSIX.describe("socket", errno: failure.code))
            }
            POSIX.setNonBlocking(fd, true)
            let result = withAddress(path) { POSIX.systemConnect(fd, $0, $1) }
            let code = result == 0 ? 0 : errno
            if code == 0 || code == EINPROGRESS {
                if code == EINPROGRESS {
                    var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    let ready = poll(&entry, 1, POSIX.pollTimeout(until: deadline))
                    var failure: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    if ready <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) != 0 || failure != 0 {
                        POSIX.closeDescriptor(fd)
                        throw .connect(path, ready <= 0 ? "timed out" : POSIX.describe("connect", errno: failure))
                    }
                }
                POSIX.setNonBlocking(fd, false)
                return fd
            }
            POSIX.closeDescriptor(fd)
            // A full backlog (Linux: EAGAIN): the node is alive but busy accepting; try again shortly.
            guard code == EAGAIN || code == EINTR, ContinuousClock.now < deadline else {
                throw .connect(path, POSIX.describe("connect", errno: code))
            }
            usleep(20_000)
        }
    }

    /// The user ID of the process at the other end of a connected socket, from the kernel.
    package static func peerUserID(_ fd: Int32) -> uid_t? {
        #if canImport(Darwin)
        var user = uid_t(0)
        var group = gid_t(0)
        return getpeereid(fd, &user, &group) == 0 ? user : nil
        #else
        // `struct ucred { pid_t pid; uid_t uid; gid_t gid; }` (the Glibc module does not export it).
        var credentials: (pid: pid_t, uid: uid_t, gid: gid_t) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(pid_t, uid_t, gid_t)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
              Int(length) == MemoryLayout<(pid_t, uid_t, gid_t)>.size else { return nil }
        return credentials.uid
        #endif
    }
}

extension Glibc_or_Darwin {
    /// `listen(2)` (Foundation's names shadow it in this module).
    package static func listen(_ fd: Int32, _ backlog: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.listen(fd, backlog)
        #else
        Glibc.listen(fd, backlog)
        #endif
    }
}

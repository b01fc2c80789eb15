import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A spawned Chromium with its DevTools pipe: we write commands to its fd 3 and read replies from its fd 4.
///
/// Spawned with `posix_spawn` (Foundation's `Process` closes every fd above 2 in the child), in its own
/// process group, with SIGPIPE reset to default and no signal blocked in the child, stdin from
/// /dev/null and stdout/stderr to a log file. Every other descriptor of the test process is closed in
/// the child (`addclosefrom_np(5)`, looked up with `dlsym` because Swift's Glibc does not import it),
/// so no pipe the tests hold leaks into Chromium and delays an EOF.
final class ChromiumProcess: Sendable {
    /// The child's process ID (also its process group ID).
    let pid: pid_t
    /// Our end of the child's fd 3 (commands).
    let commandDescriptor: Int32
    /// Our end of the child's fd 4 (replies and events).
    let replyDescriptor: Int32

    /// Whether `terminate` ran (it reaps once).
    private let reaped = Atomic(false)

    /// Spawns `path` with `arguments` (argv[1...]), logging its output to `logPath`.
    init(path: String, arguments: [String], logPath: String) throws(BrowserError) {
        // A write after Chromium died must fail with EPIPE, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        let commands = try Self.makePipe()   // child reads [0] as fd 3, we write [1]
        let replies: (Int32, Int32)
        do { replies = try Self.makePipe() } catch {
            systemClose(commands.0); systemClose(commands.1)
            throw error
        }                                    // child writes [1] as fd 4, we read [0]

        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, commands.0, 3)
        posix_spawn_file_actions_adddup2(&actions, replies.1, 4)
        var flags = Int32(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)  // Darwin: everything not named in the actions closes.
        #else
        if let closeFrom = Self.addCloseFrom {
            _ = closeFrom(&actions, 5)
        }
        // Without addclosefrom_np every descriptor we opened is CLOEXEC already; others may leak.
        #endif
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(truncatingIfNeeded: flags))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        // The environment from Foundation rather than `environ`, which Darwin's module does not export.
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            environment.forEach { free($0) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, path, &actions, &attributes, argv, environment)
        systemClose(commands.0)
        systemClose(replies.1)
        guard status == 0 else {
            systemClose(commands.1)
            systemClose(replies.0)
            throw .launchFailed("posix_spawn \(path): \(String(cString: strerror(status)))")
        }
        pid = child
        commandDescriptor = commands.1
        replyDescriptor = replies.0
    }

    /// Waits up to `grace` for the process to exit, then SIGKILLs it and reaps it; then SIGKILLs what is
    /// left of its process group (renderer and GPU helpers). Idempotent.
    func terminate(grace: Duration) {
        let shouldReap = !reaped.exchange(true, ordering: .acquiringAndReleasing)
        guard shouldReap else { return }
        let deadline = ContinuousClock.now + grace
        var status: Int32 = 0
        var exited = false
        while ContinuousClock.now < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno != EINTR) { exited = true; break }
            usleep(10_000)
        }
        if !exited {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        killpg(pid, SIGKILL)
        systemClose(commandDescriptor)
    }

    /// Two pipe ends, CLOEXEC, moved to descriptors >= 10 so that the dup2s to 3 and 4 cannot clobber them.
    private static func makePipe() throws(BrowserError) -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .launchFailed("pipe: \(String(cString: strerror(errno)))") }
        var moved: [Int32] = []
        for end in ends {
            let high = fcntl(end, F_DUPFD_CLOEXEC, 10)
            systemClose(end)
            guard high >= 0 else {
                moved.forEach(systemClose)
                throw .launchFailed("fcntl(F_DUPFD_CLOEXEC): \(String(cString: strerror(errno)))")
            }
            moved.append(high)
        }
        return (moved[0], moved[1])
    }

    #if !canImport(Darwin)
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+), which Swift's Glibc module does not import.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = {
        guard let handle = dlopen(nil, RTLD_NOW),
              let symbol = dlsym(handle, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()
    #endif
}

/// `close(2)`, callable from types that have a `close()` method of their own.
func systemClose(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// `write(2)`, callable from types that have a `write` method of their own.
func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Before a timed step of `gallery-bench syncthing`: what earlier steps left behind is finished
/// first, for both systems alike, so that the step pays only for its own work. Every file system's
/// dirty pages are written back (`sync`: a step that makes its files durable would otherwise also
/// write what the step before left in the page cache), then the processes are waited for until
/// they are idle: under `idleShare` of a core over `window` (our node making the thumbnails of
/// 10,000 files just imported, Syncthing updating its database), at most `timeout`.
enum Settle {
    static let window: TimeInterval = 0.25
    static let idleShare = 0.03

    /// Returns the seconds it waited.
    @discardableResult
    static func quiet(_ pids: [Int32], timeout: TimeInterval = 120) -> Double {
        let timed = Stopwatch.time {
            sync()
            let deadline = Date().addingTimeInterval(timeout)
            var before = cpuSeconds(pids)
            while Date() < deadline {
                usleep(useconds_t(window * 1e6))
                let now = cpuSeconds(pids)
                if now - before < idleShare * window { break }
                before = now
            }
        }
        return timed.seconds
    }

    private static func cpuSeconds(_ pids: [Int32]) -> Double {
        pids.reduce(0) { $0 + (ProcessProbe.cpuSeconds($1) ?? 0) }
    }
}

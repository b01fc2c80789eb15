import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// CPU time (user + system), which a busy shared machine inflates far less than wall-clock time:
/// a thread waiting for a CPU is not charged.
enum CPUTime {
    /// The calling thread's CPU seconds so far.
    static func currentThread() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Every thread's CPU seconds so far, by thread ID, from `/proc/self/task/*/stat` (in clock
    /// ticks, so to 10 ms); empty on systems other than Linux.
    static func threads() -> [Int: Double] {
        #if os(Linux)
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0, let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return [:] }
        var times: [Int: Double] = [:]
        for name in names {
            guard let thread = Int(name), let data = FileManager.default.contents(atPath: "/proc/self/task/\(name)/stat"),
                  let text = String(data: data, encoding: .utf8), let close = text.lastIndex(of: ")") else { continue }
            // After "pid (comm) ": state is field 3, utime field 14, stime field 15.
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            times[thread] = (user + system) / ticks
        }
        return times
        #else
        return [:]
        #endif
    }

    /// The CPU seconds of the thread that used the most between two `threads()` readings, and of
    /// all threads together; nil when unknown.
    static func busiest(from before: [Int: Double], to after: [Int: Double]) -> (thread: Double, all: Double)? {
        guard !after.isEmpty else { return nil }
        let deltas = after.map { $0.value - (before[$0.key] ?? 0) }
        return (deltas.max() ?? 0, deltas.reduce(0, +))
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What `/proc/PID` tells of another process (Linux): its CPU time, threads and resident memory,
/// read the same way for our nodes and for Syncthing.
enum ProcessProbe {
    /// Clock ticks per second of `/proc/PID/stat`'s times.
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The process's CPU seconds so far (user + system, every thread, ended ones included): its
    /// CPU-time clock (`clock_getcpuclockid`), to the nanosecond, else `/proc/PID/stat`, to a clock
    /// tick (10 ms); nil when the process is gone.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        var clock = clockid_t()
        var time = timespec()
        if clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 {
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        guard let text = read("/proc/\(pid)/stat"), let ticks = cpuTicks(statLine: text) else { return nil }
        return Double(ticks) / ticksPerSecond
    }

    /// The number of threads now (`Threads:` of `/proc/PID/status`).
    static func threads(_ pid: Int32) -> Int? {
        read("/proc/\(pid)/status").flatMap { statusValue($0, field: "Threads") }
    }

    /// The resident set size now (`VmRSS`), in bytes.
    static func residentBytes(_ pid: Int32) -> Int? {
        read("/proc/\(pid)/status").flatMap { statusValue($0, field: "VmRSS") }.map { $0 * 1024 }
    }

    /// The anonymous part of the resident set (`RssAnon`: heap, stacks; not the program's code and
    /// other file pages, which a first use of a code path faults in), in bytes.
    static func anonymousResidentBytes(_ pid: Int32) -> Int? {
        read("/proc/\(pid)/status").flatMap { statusValue($0, field: "RssAnon") }.map { $0 * 1024 }
    }

    /// The peak resident set size (`VmHWM`) since the start or the last `resetPeak`, in bytes.
    static func peakResidentBytes(_ pid: Int32) -> Int? {
        read("/proc/\(pid)/status").flatMap { statusValue($0, field: "VmHWM") }.map { $0 * 1024 }
    }

    /// Resets the process's `VmHWM` to its current resident size (writes 5 to
    /// `/proc/PID/clear_refs`), so that the next reading is the peak of what follows; false when
    /// the kernel refused.
    @discardableResult
    static func resetPeak(_ pid: Int32) -> Bool {
        let fd = open("/proc/\(pid)/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// User + system ticks (fields 14 and 15) of a `/proc/PID/stat` line. The command name (field
    /// 2) is in parentheses and may hold spaces and parentheses, so fields are counted after the
    /// last `)`.
    static func cpuTicks(statLine: String) -> Int? {
        guard let close = statLine.lastIndex(of: ")") else { return nil }
        // After ") ": state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
        let fields = statLine[statLine.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// The first number of a `NAME:` line of `/proc/PID/status` (`Threads:\t12`, `VmRSS:\t  1024 kB`).
    static func statusValue(_ status: String, field: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }

    /// A procfs file read to its end (procfs reports a size of 0).
    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}

/// Samples a process's thread count and resident size every millisecond on a thread of its own,
/// keeping the largest seen, until `stop()`.
final class ProcessSampler: Sendable {
    /// The peaks seen so far, the samples taken, and whether to go on.
    private struct Peaks {
        var running = true
        var threads = 0
        var resident = 0
        var samples = 0
    }

    private let pid: Int32
    private let peaks = Mutex(Peaks())
    private let done = DispatchSemaphore(value: 0)

    /// Starts sampling `pid`.
    init(_ pid: Int32) {
        self.pid = pid
        Thread.detachNewThread { [self] in
            while peaks.withLock({ $0.running }) {
                let threads = ProcessProbe.threads(pid) ?? 0
                let resident = ProcessProbe.residentBytes(pid) ?? 0
                peaks.withLock { peaks in
                    peaks.threads = max(peaks.threads, threads)
                    peaks.resident = max(peaks.resident, resident)
                    peaks.samples += 1
                }
                usleep(1_000)
            }
            done.signal()
        }
    }

    /// Stops sampling and returns the most threads and the largest resident size seen, and how
    /// many samples were taken.
    func stop() -> (threads: Int, resident: Int, samples: Int) {
        peaks.withLock { $0.running = false }
        done.wait()
        return peaks.withLock { ($0.threads, $0.resident, $0.samples) }
    }
}

import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The disk's own fsync latency, the floor under every durable op: `samples` appends of one
/// op-sized record (300 bytes) to a fresh file, each followed by `fsync`, alone and on two files
/// at once (one thread each, as a store fsyncs the op log and its mirror), in `directory` (the
/// nodes' file system), alternated sample by sample. Medians and 99th percentiles in microseconds.
enum DiskSyncFloor {
    /// One measurement: p50 and p99 of one file's fsync and of two files' fsyncs in parallel.
    struct Figures {
        var singleP50: Double
        var singleP99: Double
        var pairP50: Double
        var pairP99: Double
    }

    static let recordBytes = 300

    /// Measures both ways, `samples` each, in files of `directory` that are removed afterwards.
    static func measure(in directory: URL, samples: Int = 200) throws -> Figures {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let paths = ["fsync-floor-a", "fsync-floor-b"].map { directory.appendingPathComponent($0).path }
        let descriptors = try paths.map { path -> Int32 in
            let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_APPEND | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw BenchFailure.failed("fsync floor: cannot create \(path): \(String(cString: strerror(errno)))") }
            return fd
        }
        defer {
            for fd in descriptors { close(fd) }
            for path in paths { unlink(path) }
        }
        let record = [UInt8](repeating: 0x5A, count: recordBytes)
        let appendAndSync = { @Sendable (fd: Int32) -> Bool in
            record.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) } == recordBytes && fsync(fd) == 0
        }
        var single: [Double] = [], pair: [Double] = []
        let partner = PartnerThread()
        defer { partner.stop() }
        // Alternated, one of each per sample: both see the disk in the same state.
        for _ in 0..<samples {
            var start = DispatchTime.now().uptimeNanoseconds
            guard appendAndSync(descriptors[0]) else { throw BenchFailure.failed("fsync floor: write or fsync failed") }
            single.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3)
            let second = descriptors[1]
            start = DispatchTime.now().uptimeNanoseconds
            partner.run { _ = appendAndSync(second) }
            guard appendAndSync(descriptors[0]) else { throw BenchFailure.failed("fsync floor: write or fsync failed") }
            partner.wait()
            pair.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3)
        }
        return Figures(singleP50: percentile(single, 50), singleP99: percentile(single, 99),
                       pairP50: percentile(pair, 50), pairP99: percentile(pair, 99))
    }

    private static func percentile(_ values: [Double], _ p: Int) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, sorted.count * p / 100)]
    }
}

/// A parked thread that runs one job at a time for `DiskSyncFloor`'s parallel fsyncs (its start
/// is not counted in the figure; its wake-up is, as a store's is).
private final class PartnerThread: Sendable {
    private let job = Mutex<(@Sendable () -> Void)?>(nil)
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)

    init() {
        Thread.detachNewThread { [self] in loop() }
    }

    /// Hands `body` to the thread (one job at a time: `wait` before the next).
    func run(_ body: @escaping @Sendable () -> Void) {
        job.withLock { $0 = body }
        started.signal()
    }

    /// Waits until the job handed last has run.
    func wait() {
        finished.wait()
    }

    /// Ends the thread.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        started.signal()
    }

    private func loop() {
        while true {
            started.wait()
            if stopping.load(ordering: .relaxed) { return }
            let body = job.withLock { job in
                defer { job = nil }
                return job
            }
            body?()
            finished.signal()
        }
    }
}

import Foundation
import GalleryHost
import GalleryModel
import GallerySimulation
import GalleryStorage
#if canImport(Glibc)
import Glibc
#endif

/// `gallery-bench startup`: how long `GalleryServer` takes to restore a node directory whose log
/// holds 1,000,000 ops, replaying the op log, then from a snapshot, then from a snapshot with
/// 50,000 more ops in the log (the most a default checkpoint policy leaves).
enum StartupBenchmark {
    /// Ops in the directory.
    static let opCount = 1_000_000
    /// Ops added to the log after the snapshot in the last run.
    static let tailCount = 50_000

    /// Builds the directory, runs the three starts, and returns one JSON line per start.
    static func run() throws -> [String] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("gallery-bench-startup-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let id = ReplicaID(0x5157_A27B_E4C4_0001)
        var history = History(id: id)
        try Data((id.description + "\n").utf8).write(to: directory.appendingPathComponent("replica"))
        try Data(Array("benchmark secret".utf8)).write(to: directory.appendingPathComponent("secret"))
        try appendToLog(history.next(opCount), in: directory)

        var lines: [String] = []
        let replay = try start(directory, expecting: opCount)
        lines.append(line("replay log", replay, directory))
        // The start asked for a checkpoint in the background: this waits for it.
        let checkpointCPU = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
        let (_, checkpointSeconds) = try Stopwatch.time { try replay.server.checkpoint() }
        replay.server.stop()
        lines.append(line("checkpoint", (replay.server, checkpointSeconds, cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - checkpointCPU), directory))

        let snapshot = try start(directory, expecting: opCount)
        guard snapshot.server.startup.snapshotOps == opCount else { throw BenchFailure.failed("startup: snapshot not used") }
        snapshot.server.stop()
        lines.append(line("snapshot", snapshot, directory))

        try appendToLog(history.next(tailCount), in: directory)
        let tail = try start(directory, expecting: opCount + tailCount)
        tail.server.stop()
        lines.append(line("snapshot + \(tailCount) in log", tail, directory))
        return lines
    }

    /// Times `GalleryServer.init` on the directory (not started: no sockets), in wall-clock and
    /// CPU seconds of this thread (which does all of the start), and checks the ops.
    private static func start(
        _ directory: URL, expecting count: Int
    ) throws -> (server: GalleryServer, seconds: Double, cpuSeconds: Double) {
        let cpu = cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
        let (server, seconds) = try Stopwatch.time {
            try GalleryServer(directory: directory, name: "bench", log: .silent)
        }
        let cpuSeconds = cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - cpu
        guard server.node.read({ $0.opCount }) == count else {
            server.stop()
            throw BenchFailure.failed("startup: \(server.node.read { $0.opCount }) ops restored, expected \(count)")
        }
        return (server, seconds, cpuSeconds)
    }

    /// CPU time used so far by the calling thread or the process (`clock`), in seconds.
    private static func cpuSeconds(_ clock: clockid_t) -> Double {
        #if canImport(Glibc)
        var time = timespec()
        guard clock_gettime(clock, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        #else
        return 0
        #endif
    }

    /// Appends ops to the directory's op log, as the node would have: to the log and to its copy
    /// (`oplog.mirror`, the same bytes), so that the start measured is not a repair.
    private static func appendToLog(_ ops: [Op], in directory: URL) throws {
        let url = directory.appendingPathComponent("oplog")
        let (log, _, _) = try OpLogFile.open(at: url)
        var index = 0
        while index < ops.count {
            try log.append(Array(ops[index..<min(ops.count, index + 10_000)]))
            index += 10_000
        }
        try log.close()
        let mirror = directory.appendingPathComponent("oplog.mirror")
        try? FileManager.default.removeItem(at: mirror)
        try FileManager.default.copyItem(at: url, to: mirror)
    }

    /// One JSON line: what was timed, the ops the node holds, seconds, and the sizes of its files.
    private static func line(
        _ name: String, _ run: (server: GalleryServer, seconds: Double, cpuSeconds: Double), _ directory: URL
    ) -> String {
        func size(_ file: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(file).path))?[.size] as? Int) ?? 0
        }
        return """
            {"workload": "startup", "start": "\(name)", "ops": \(run.server.node.read { $0.opCount }), \
            "seconds": \(String(format: "%.3f", run.seconds)), "cpuSeconds": \(String(format: "%.3f", run.cpuSeconds)), \
            "snapshotOps": \(run.server.startup.snapshotOps), \
            "replayedOps": \(run.server.startup.replayedOps), "oplogBytes": \(size("oplog")), \
            "compactBytes": \(size("ops.compact")), "snapshotBytes": \(size("snapshot"))}
            """
    }

    /// A seeded history of one replica: 70% single-item inserts with 9-byte titles at random
    /// places, 20% moves, 10% title updates, over two galleries.
    private struct History {
        var replica: Replica
        var generator = SeededGenerator(seed: 7)

        /// An empty history of the replica `id`.
        init(id: ReplicaID) {
            replica = Replica(id: id)
        }

        /// The next `count` ops.
        mutating func next(_ count: Int) throws -> [Op] {
            var ops: [Op] = []
            ops.reserveCapacity(count)
            if replica.opCount == 0 {
                ops.append(try replica.createGallery("bench"))
                ops.append(try replica.createGallery("other"))
            }
            while ops.count < count {
                let gallery = Bool.random(using: &generator) ? "bench" : "other"
                let size = try replica.count(in: gallery)
                let choice = Int.random(in: 0..<10, using: &generator)
                if size < 10 || choice < 7 {
                    let title = "img" + String(format: "%06d", replica.opCount % 1_000_000)
                    ops.append(try replica.insert([.titled(title)], into: gallery, at: Int.random(in: 0...size, using: &generator)))
                } else if choice < 9 {
                    let item = try replica.item(at: Int.random(in: 0..<size, using: &generator), in: gallery)
                    ops.append(try replica.move(item.id, to: gallery, at: Int.random(in: 0..<size, using: &generator)))
                } else {
                    let item = try replica.item(at: Int.random(in: 0..<size, using: &generator), in: gallery)
                    ops.append(try replica.update(item.id, .title, to: .text("t\(ops.count)")))
                }
            }
            return ops
        }
    }
}

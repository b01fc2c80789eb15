import Foundation
import GalleryModel
import GalleryStorage

/// `gallery-bench commit`: what keeping the op log twice (`oplog.mirror`) costs a commit. A node's
/// storage (`NodeStorage`, on a directory of the machine's disk) persists `--commits` single ops,
/// one append and fsync each as a local command is acknowledged, then 200 batches of 64 ops (a
/// busy group commit); with the log alone and with its mirror, alternated over `--rounds` rounds on
/// fresh directories. Then the start of each directory (the mirror is checked, not decoded).
enum CommitBenchmark {
    static func run(_ arguments: [String]) throws -> [String] {
        var commits = 1_000
        var rounds = 3
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            guard let value = remaining.popFirst().flatMap(Int.init), value > 0 else {
                throw BenchFailure.usage("\(flag) needs a positive number")
            }
            switch flag {
            case "--commits": commits = value
            case "--rounds": rounds = value
            default: throw BenchFailure.usage("unknown option \(flag) for commit")
            }
        }
        var lines: [String] = []
        for round in 0..<rounds {
            for mirrored in round % 2 == 0 ? [false, true] : [true, false] {
                lines.append(try measure(mirrored: mirrored, commits: commits, round: round))
            }
        }
        return lines
    }

    /// One round: single-op commits, then batches, then a start of the directory.
    private static func measure(mirrored: Bool, commits: Int, round: Int) throws -> String {
        let directory = FileManager.default.currentDirectoryPath + "/.gallery-bench-commit-\(UUID().uuidString)"
        let url = URL(fileURLWithPath: directory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        let files = NodeDirectory(url: url)
        let replicaID = ReplicaID(0xBE)
        let opened = try NodeStorage.open(files, replicaID: replicaID, mirrored: mirrored)
        let storage = opened.storage
        var replica = opened.replica
        try storage.persist([try replica.createGallery("g")])

        var latencies: [Double] = []
        latencies.reserveCapacity(commits)
        let single = try Stopwatch.time {
            for index in 0..<commits {
                let op = try replica.insert([.titled("item \(index)")], into: "g", at: index)
                latencies.append(try Stopwatch.time { try storage.persist([op]) }.seconds)
            }
        }.seconds
        latencies.sort()
        var batches: [[Op]] = []
        for batch in 0..<200 {
            batches.append(try (0..<64).map { index in
                try replica.insert([.titled("batch \(batch).\(index)")], into: "g", at: 0)
            })
        }
        let batched = try Stopwatch.time { for batch in batches { try storage.persist(batch) } }.seconds
        let logBytes = storage.recordLog.byteCount
        try storage.close()
        let start = try Stopwatch.time { try NodeStorage.open(files, replicaID: replicaID, mirrored: mirrored) }
        try start.result.storage.close()

        let percentile = { (fraction: Double) in latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))] * 1e6 }
        let onDisk = logBytes * (mirrored ? 2 : 1)
        return """
            {"workload": "commit", "mirror": \(mirrored), "round": \(round), "commits": \(commits), \
            "commitsPerSecond": \(Int((Double(commits) / single).rounded())), \
            "p50Microseconds": \(Int(percentile(0.5).rounded())), "p99Microseconds": \(Int(percentile(0.99).rounded())), \
            "batchesOf64PerSecond": \(Int((200 / batched).rounded())), \
            "logBytes": \(logBytes), "bytesOnDisk": \(onDisk), \
            "startMilliseconds": \(String(format: "%.1f", start.seconds * 1e3)), "opsAtStart": \(start.result.replica.opCount)}
            """
    }
}

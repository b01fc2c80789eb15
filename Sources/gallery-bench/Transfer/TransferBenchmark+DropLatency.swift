import Foundation

/// `gallery-bench transfer --drop-latency [--rounds N]`: only the `drop-latency` workload (200
/// drags of 1 MiB images one after the other, each on fresh nodes per round), with the disk's own
/// fsync latency measured right before and right after each round in the nodes' directory: the
/// floor under the placeholder on the source, which waits for two stores (B's, then A's), each an
/// fsync of the op log and one of its mirror, two at a time.
extension TransferBenchmark {
    /// Runs `rounds` rounds (3 unless `--rounds N`); two JSON lines per round, the disk's and the
    /// drops'.
    static func dropLatencyRounds(_ arguments: [String]) throws -> [String] {
        var rounds = 3
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument == "--rounds", let value = rest.popFirst().flatMap(Int.init), (1...100).contains(value) else {
                throw BenchFailure.usage("transfer --drop-latency takes --rounds N (1-100), not \"\(argument)\"")
            }
            rounds = value
        }
        var lines: [String] = []
        for round in 1...rounds {
            let nodes = try TransferNodes()
            defer { nodes.stop() }
            let before = try DiskSyncFloor.measure(in: nodes.root.appendingPathComponent("floor"))
            let drops = try dropLatency(nodes)
            let after = try DiskSyncFloor.measure(in: nodes.root.appendingPathComponent("floor"))
            let mean = { (first: Double, second: Double) in String(format: "%.0f", (first + second) / 2) }
            lines.append("""
                {"workload": "disk-fsync", "round": \(round), "recordBytes": \(DiskSyncFloor.recordBytes), \
                "oneFileP50Us": \(mean(before.singleP50, after.singleP50)), "oneFileP99Us": \(mean(before.singleP99, after.singleP99)), \
                "twoFilesAtOnceP50Us": \(mean(before.pairP50, after.pairP50)), "twoFilesAtOnceP99Us": \(mean(before.pairP99, after.pairP99)), \
                "pathFloorP50Ms": \(String(format: "%.3f", (before.pairP50 + after.pairP50) / 1e3))}
                """)
            lines.append(drops)
        }
        return lines
    }
}

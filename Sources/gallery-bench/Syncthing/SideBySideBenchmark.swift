import Foundation

/// `gallery-bench syncthing`: our nodes against Syncthing on the same files in one run, inside a
/// network namespace whose only interface is loopback (`bench/syncthing-side-by-side.sh` enters
/// it; Syncthing refuses to start elsewhere), the two systems alternating, `--repetitions` rounds,
/// medians.
///
/// A round of one system starts two fresh nodes A and B, connected on 127.0.0.1, and measures:
/// - `import.small` / `import.medium`: `gallery -C A add FOLDER` of the small and the medium files
///   (into a gallery each) against Syncthing's first scan of the same folder added on A (from the
///   folder added to the scan's end); the sources dropped from the page cache before each;
/// - `sync.medium`: the medium files to B: our `gallery -C B drag medium --to b --wait` against
///   Syncthing sharing the scanned folder with B until B's folder holds every file; `.whole` adds
///   the import (and, ours, the time until B knows the items); B's peak threads and resident size
///   during it, its resident size before and after, both nodes' peak resident size;
/// - `sync.large`: the same for one large file (time, MB/s, peak resident sizes);
/// - `moves`: 1,000 moves on A until B shows them: ours as one `gallery move --stdin` command
///   (`moves.batch`) and as one command per item (`moves.separate`), theirs as one `rename(2)` per
///   file then a scan (`moves.renames`);
/// - `idle`: the CPU of A and B together over `--idle-seconds`, as a percentage of one core;
/// then (ours only) `watch`: a node's CPU per change with a `gallery watch` attached and without,
/// at each of `--watch-items` gallery sizes.
enum SideBySideBenchmark {
    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try SideBySideOptions(arguments)
        if options.systems.contains(.syncthing) {
            try LoopbackNamespace.check()
            guard let version = SyncthingNode.version() else {
                throw BenchFailure.failed("syncthing is not installed (bench/syncthing-side-by-side.sh installs it)")
            }
            let escaped = version.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            writeLine("{\"syncthing\": \"\(escaped)\"}", to: .standardOutput)
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-syncthing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        SideBySideLog.note("writing the data sets")
        let data = try SideBySideData(root: root.appendingPathComponent("data"), options: options)
        let results = SideBySideResults()
        for repetition in 1...options.repetitions {
            // Alternate which system goes first, so that neither always runs on a warmer machine.
            let order = repetition % 2 == 1 ? options.systems : options.systems.reversed()
            for system in order {
                let scratch = root.appendingPathComponent("\(system.rawValue)-\(repetition)")
                SideBySideLog.note("repetition \(repetition): \(system.rawValue)")
                switch system {
                case .ours:
                    try OursRound(data: data, options: options, results: results, repetition: repetition, scratch: scratch).run()
                case .syncthing:
                    try SyncthingRound(data: data, options: options, results: results, repetition: repetition, scratch: scratch).run()
                }
                try? FileManager.default.removeItem(at: scratch)
            }
            if !options.watchItems.isEmpty && options.systems.contains(.ours) {
                let scratch = root.appendingPathComponent("watch-\(repetition)")
                try WatchRound(options: options, results: results, repetition: repetition, scratch: scratch).run()
                try? FileManager.default.removeItem(at: scratch)
            }
        }
        let summary = SideBySideSummary(results: results, options: options)
        for line in summary.jsonLines() { writeLine(line, to: .standardOutput) }
        writeLine(summary.table(), to: .standardError)
        return 0
    }
}

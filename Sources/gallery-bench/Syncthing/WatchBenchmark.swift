import Foundation

/// `gallery-bench watch`: the `watch` cost per change of `gallery-bench syncthing` alone (no
/// Syncthing, no network namespace, no import or sync rounds), the gallery sizes alternated: the
/// first size first in odd repetitions, the last first in even ones, so that a drift of the
/// machine's load falls on both. Prints every sample as a JSON line, then the medians and the
/// target (within 20%) as a JSON line and a Markdown table on standard error.
enum WatchBenchmark {
    static func run(_ arguments: [String]) throws -> Int32 {
        var options = try SideBySideOptions(arguments)
        options.systems = [.ours]
        guard options.watchItems.count >= 1 else { throw BenchFailure.usage("--watch-items needs a size") }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let results = SideBySideResults()
        for repetition in 1...options.repetitions {
            var round = options
            if repetition % 2 == 0 { round.watchItems.reverse() }
            SideBySideLog.note("repetition \(repetition): watch at \(round.watchItems.map(String.init).joined(separator: ", ")) items")
            let scratch = root.appendingPathComponent("watch-\(repetition)")
            try WatchRound(options: round, results: results, repetition: repetition, scratch: scratch).run()
            try? FileManager.default.removeItem(at: scratch)
        }
        let summary = SideBySideSummary(results: results, options: options)
        let watchRows = summary.rows.filter { $0.figure.hasPrefix("watch") }
        for line in summary.jsonLines() where line.contains("\"summary\": \"watch") { writeLine(line, to: .standardOutput) }
        var table = "| figure (median of \(options.repetitions)) | value |\n|---|---|\n"
        for figure in results.figures { table += "| \(figure) | \(SideBySideSummary.format(results.median(figure, .ours))) |\n" }
        for row in watchRows {
            table += "\n\(row.figure): \(SideBySideSummary.format(row.ours)) \(row.unit); \(row.target): \(row.met.map { $0 ? "met" : "not met" } ?? "n/a")\n"
        }
        writeLine(table, to: .standardError)
        return 0
    }
}

import Foundation

/// The end of a side-by-side run: each of issue 27's figures from the medians, against its target,
/// as JSON lines and as a Markdown table for BENCHMARKS.md.
struct SideBySideSummary {
    let results: SideBySideResults
    let options: SideBySideOptions

    /// One row: what was measured, our median, Syncthing's (nil when the figure is ours alone),
    /// the ratio or the value the target is about, the target, and whether it is met (nil when
    /// either side is missing).
    struct Row {
        var figure: String
        var ours: Double?
        var theirs: Double?
        var unit: String
        var target: String
        var met: Bool?

        var ratio: Double? {
            guard let ours, let theirs, theirs > 0 else { return nil }
            return ours / theirs
        }
    }

    var rows: [Row] {
        func median(_ figure: String, _ system: SideBySideSystem) -> Double? { results.median(figure, system) }
        /// A figure where ours / theirs must be at most `limit` (times: lower is better).
        func atMost(_ label: String, _ ours: String, _ theirs: String, unit: String = "s", limit: Double = 1.0) -> Row {
            var row = Row(figure: label, ours: median(ours, .ours), theirs: median(theirs, .syncthing), unit: unit,
                          target: "<= \(String(format: "%.1f", limit))x Syncthing", met: nil)
            row.met = row.ratio.map { $0 <= limit }
            return row
        }
        let small = "\(options.smallFiles) x \(options.smallBytes / 1_024) KiB"
        let medium = "\(options.mediumFiles) x \(options.mediumBytes / 1_024) KiB"
        let large = "\(options.largeBytes >> 20) MiB"
        var rows = [
            atMost("import of \(small) (Syncthing: first scan)", "import.small.seconds", "import.small.seconds"),
            atMost("import in place of \(small) (`add --in-place`; Syncthing: first scan)", "import.small.inPlace.seconds", "import.small.seconds"),
            atMost("import of \(medium)", "import.medium.seconds", "import.medium.seconds"),
            atMost("import in place of \(medium) (`add --in-place`)", "import.medium.inPlace.seconds", "import.medium.seconds"),
            atMost("sync of \(medium) to a peer, whole (import + transfer)", "sync.medium.whole.seconds", "sync.medium.whole.seconds"),
            atMost("sync of \(medium), transfer alone", "sync.medium.seconds", "sync.medium.seconds"),
        ]
        var throughput = Row(figure: "sync of \(large) to a peer, throughput", ours: median("sync.large.MBps", .ours),
                             theirs: median("sync.large.MBps", .syncthing), unit: "MB/s", target: ">= 1.0x Syncthing", met: nil)
        throughput.met = throughput.ratio.map { $0 >= 1.0 }
        rows.append(throughput)
        rows.append(atMost("\(options.mediumFiles) moves as one command, until the peer has them", "moves.batch.seconds", "moves.renames.seconds"))
        rows.append(atMost("\(options.mediumFiles) moves as as many commands, until the peer has them", "moves.separate.seconds", "moves.renames.seconds"))
        rows.append(atMost("idle CPU of two connected nodes", "idle.cpuPercent", "idle.cpuPercent", unit: "% of a core"))
        let threads = median("sync.medium.receiverPeakThreads", .ours)
        rows.append(Row(figure: "\(options.mediumFiles)-item drag: receiver's peak threads", ours: threads,
                        theirs: median("sync.medium.receiverPeakThreads", .syncthing), unit: "threads", target: "<= 16",
                        met: threads.map { $0 <= 16 }))
        // Every repetition must return, not only the median.
        let returned = results.values("drag.receiverRSSAfterOverBefore", .ours)
        rows.append(Row(figure: "\(options.mediumFiles)-item drag: receiver's RSS after / before", ours: returned.max(),
                        theirs: median("drag.receiverRSSAfterOverBefore", .syncthing), unit: "ratio (ours: worst)",
                        target: "<= 1.10", met: returned.isEmpty ? nil : returned.allSatisfy { $0 <= 1.10 }))
        let watchSizes = options.watchItems.sorted()
        if let smallest = watchSizes.first, let largest = watchSizes.last, smallest != largest {
            let low = median("watch.\(smallest).watchCostMsPerChange", .ours)
            let high = median("watch.\(largest).watchCostMsPerChange", .ours)
            var row = Row(figure: "watch cost per change and watcher (node CPU with watchers minus without, over their number), \(smallest) vs \(largest) items",
                          ours: high, theirs: nil, unit: "ms at \(largest) (\(Self.format(low)) at \(smallest))", target: "within 20%", met: nil)
            if let low, let high { row.met = abs(high - low) <= 0.2 * max(abs(low), 0.001) || abs(high - low) < 0.05 }
            rows.append(row)
        }
        return rows
    }

    /// One JSON line per row.
    func jsonLines() -> [String] {
        rows.map { row in
            let met = row.met.map { $0 ? "true" : "false" } ?? "null"
            return "{\"summary\": \"\(row.figure)\", \"ours\": \(SideBySideResults.number(row.ours)), \"syncthing\": \(SideBySideResults.number(row.theirs)), "
                + "\"ratio\": \(SideBySideResults.number(row.ratio)), \"unit\": \"\(row.unit)\", \"target\": \"\(row.target)\", \"met\": \(met)}"
        }
    }

    /// The medians of every figure per system, then the targets, as Markdown.
    func table() -> String {
        var text = "| figure (median of \(options.repetitions)) | ours | Syncthing | ratio |\n|---|---|---|---|\n"
        for figure in results.figures {
            let ours = results.median(figure, .ours), theirs = results.median(figure, .syncthing)
            let ratio = ours.flatMap { ours in theirs.flatMap { $0 > 0 ? ours / $0 : nil } }
            text += "| \(figure) | \(Self.format(ours)) | \(Self.format(theirs)) | \(ratio.map { String(format: "%.2f", $0) } ?? "") |\n"
        }
        text += "\n| target | ours | Syncthing | ratio | target | met |\n|---|---|---|---|---|---|\n"
        for row in rows {
            let met = row.met.map { $0 ? "**yes**" : "no" } ?? "n/a"
            text += "| \(row.figure) | \(Self.format(row.ours)) | \(Self.format(row.theirs)) | \(row.ratio.map { String(format: "%.2f", $0) } ?? "") | \(row.target) (\(row.unit)) | \(met) |\n"
        }
        return text
    }

    static func format(_ value: Double?) -> String {
        guard let value else { return "" }
        if value >= 100 { return String(format: "%.0f", value) }
        if value >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.3g", value)
    }
}

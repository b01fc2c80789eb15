import Foundation
import Synchronization

/// A node log that writes at most one line of each kind per interval, and counts the lines it
/// holds back: the count is written once the interval is over ("N more like this in the last
/// S s"), so that a flood of the same event (accept failures at the descriptor limit, refused
/// connections) costs a few lines per second, not megabytes.
final class ThrottledLog: Sendable {
    /// The state of one kind of line.
    private struct Kind: Sendable {
        /// When the last line of this kind was written (uptime, nanoseconds).
        var writtenAt: UInt64
        /// Lines held back since.
        var suppressed: Int
        /// The first line held back, as an example in the summary.
        var example: String
    }

    private let log: NodeLog
    /// The least time between two lines of one kind (nanoseconds).
    let interval: UInt64
    private let kinds = Mutex<[String: Kind]>([:])

    init(_ log: NodeLog, interval: Duration = .seconds(1)) {
        self.log = log
        self.interval = UInt64(max(interval.nanoseconds, 1))
    }

    /// Writes `line` unless a line of the same `kind` was written less than `interval` ago, in
    /// which case it is counted.
    func callAsFunction(_ kind: String, _ line: @autoclosure () -> String, now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        let summary: String?
        let write: String?
        (summary, write) = kinds.withLock { kinds -> (String?, String?) in
            if var entry = kinds[kind], now - min(now, entry.writtenAt) < interval {
                if entry.suppressed == 0 { entry.example = line() }
                entry.suppressed += 1
                kinds[kind] = entry
                return (nil, nil)
            }
            let summary = kinds[kind].flatMap(summaryLocked)
            kinds[kind] = Kind(writtenAt: now, suppressed: 0, example: "")
            return (summary, line())
        }
        if let summary { log(summary) }
        if let write { log(write) }
    }

    /// Writes the count of every kind whose interval is over and that held lines back; call it
    /// regularly (the node's liveness loop does).
    func flush(now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        let lines = kinds.withLock { kinds -> [String] in
            var lines: [String] = []
            for (kind, entry) in kinds where entry.suppressed > 0 && now - min(now, entry.writtenAt) >= interval {
                if let summary = summaryLocked(entry) { lines.append(summary) }
                kinds[kind] = Kind(writtenAt: now, suppressed: 0, example: "")
            }
            return lines
        }
        for line in lines { log(line) }
    }

    /// The line that reports what an entry held back, if anything.
    private func summaryLocked(_ entry: Kind) -> String? {
        guard entry.suppressed > 0 else { return nil }
        let seconds = String(format: "%g", Double(interval) / 1e9)
        return "\(entry.example) (\(entry.suppressed) lines like this in the last \(seconds) s, this one shown)"
    }
}

import Foundation

/// The resident memory of a Chromium's renderer processes, read from `/proc` (Linux only): the
/// processes descended from the browser whose command line says `--type=renderer`.
enum RendererMemory {
    /// The largest renderer's `VmRSS` in bytes (the page's, when one page is busy), or nil off Linux.
    static func largestResident(under browser: Int32) -> Int? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        var parent: [Int32: Int32] = [:]
        for entry in entries {
            guard let pid = Int32(entry), let stat = read("/proc/\(pid)/stat"),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 2, let ppid = Int32(fields[1]) { parent[pid] = ppid }
        }
        func descends(_ pid: Int32) -> Bool {
            var current = pid
            for _ in 0..<16 {
                guard let up = parent[current] else { return false }
                if up == browser { return true }
                current = up
            }
            return false
        }
        var largest: Int?
        for pid in parent.keys where descends(pid) {
            guard let line = read("/proc/\(pid)/cmdline"), line.contains("--type=renderer"),
                  let status = read("/proc/\(pid)/status") else { continue }
            for field in status.split(separator: "\n") where field.hasPrefix("VmRSS:") {
                let parts = field.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if parts.count >= 2, let kilobytes = Int(parts[1]) { largest = max(largest ?? 0, kilobytes * 1024) }
            }
        }
        return largest
    }

    private static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() else { return nil }
        try? handle.close()
        return String(decoding: data, as: UTF8.self)
    }
}

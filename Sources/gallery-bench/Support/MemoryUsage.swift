import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The resident memory of this process, read from `/proc/self/status` on Linux.
///
/// On other systems the figures are unknown (nil), and the benchmarks print `null` for them.
enum MemoryUsage {
    /// The peak resident set size so far (`VmHWM`), in bytes; nil when unknown.
    static func peakResidentBytes() -> Int? {
        statusField("VmHWM")
    }

    /// The current resident set size (`VmRSS`), in bytes; nil when unknown.
    static func currentResidentBytes() -> Int? {
        statusField("VmRSS")
    }

    /// Hands the free pages of malloc's heap back to the system (glibc's `malloc_trim(0)`, which
    /// the Glibc module does not import), so that the resident size read next counts live memory
    /// rather than memory freed and kept by malloc. Does nothing elsewhere.
    static func releaseFreeHeap() {
        #if canImport(Glibc)
        if let symbol = dlsym(nil, "malloc_trim") {
            _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
        }
        #endif
    }

    /// A `kB` field of `/proc/self/status`, in bytes.
    private static func statusField(_ name: String) -> Int? {
        #if os(Linux)
        // procfs files report a size of 0, so read to the end rather than by the reported size.
        guard let file = FileHandle(forReadingAtPath: "/proc/self/status") else { return nil }
        defer { try? file.close() }
        guard let data = try? file.readToEnd(), let text = String(data: data, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            // e.g. "VmHWM:	  123456 kB"
            let fields = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2, fields[1] == "kB", let kilobytes = Int(fields[0]) else { return nil }
            return kilobytes * 1024
        }
        return nil
        #else
        return nil
        #endif
    }
}

import Foundation

/// Whether this process runs in a network namespace whose only interface is the loopback one
/// (`unshare -n`, then `ip link set lo up`): Syncthing may start only there, where nothing it
/// tries to reach outside the machine can be reached.
enum LoopbackNamespace {
    /// The interface names of this process's network namespace, from `/proc/self/net/dev` (which,
    /// unlike `/sys/class/net`, always shows the caller's own namespace).
    static func interfaces() -> [String]? {
        guard let text = try? String(contentsOfFile: "/proc/self/net/dev", encoding: .utf8) else { return nil }
        return interfaces(procNetDev: text)
    }

    /// The interface names of a `/proc/net/dev` table: two header lines, then `NAME: counters...`.
    static func interfaces(procNetDev text: String) -> [String] {
        text.split(separator: "\n").dropFirst(2).compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return line[..<colon].trimmingCharacters(in: .whitespaces)
        }
    }

    /// Throws unless the namespace holds `lo` and nothing else.
    static func check() throws {
        guard let names = interfaces() else { throw BenchFailure.failed("syncthing: cannot read /proc/self/net/dev (Linux only)") }
        guard names == ["lo"] else {
            throw BenchFailure.failed(
                "syncthing: refusing to start Syncthing outside a loopback-only network namespace (interfaces: \(names.joined(separator: ", "))); run bench/syncthing-side-by-side.sh")
        }
    }
}

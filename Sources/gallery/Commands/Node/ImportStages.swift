import Foundation

/// The stages of one `gallery add`, timed for measurements: with `GALLERY_IMPORT_STAGES=1` in the
/// environment, one line on stderr at the end, e.g.
/// `stages: expand 1.2 ms, store 210.4 ms, sync 48.1 ms, install 12.0 ms, node 30.2 ms`
/// (each stage from the end of the one before; `store` reads, hashes and writes every file,
/// `sync` is the first `syncfs`, `install` the renames and the second, `node` the one command).
/// Nothing is timed or printed without it.
final class ImportStages {
    private let clock = ContinuousClock()
    private var last: ContinuousClock.Instant
    private var marks: [(String, Duration)] = []
    private let enabled: Bool

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        enabled = environment["GALLERY_IMPORT_STAGES"] == "1"
        last = clock.now
    }

    /// Ends the stage `name` now.
    func end(_ name: String) {
        guard enabled else { return }
        let now = clock.now
        marks.append((name, now - last))
        last = now
    }

    /// Prints the stages timed so far, once.
    func report() {
        guard enabled, !marks.isEmpty else { return }
        let parts = marks.map { name, duration in
            let milliseconds = Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
            return "\(name) \(String(format: "%.1f", milliseconds)) ms"
        }
        marks = []
        FileHandle.standardError.write(Data("stages: \(parts.joined(separator: ", "))\n".utf8))
    }
}

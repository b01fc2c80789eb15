import Foundation
import Synchronization

/// The progress of `gallery add`'s files on stderr: on a terminal one line rewritten in place
/// (at most ten times a second), else one line per tenth of the files, then a last line:
/// `stored 250/1000 files, 1.0 GB, 812 MB/s` (`hashed` with `--in-place`); the import's threads
/// report here.
final class ImportProgress: Sendable {
    /// The counts, and when the import started and the last line was written.
    private struct Counts {
        var start = ContinuousClock.now
        var lastLine = ContinuousClock.now
        var files = 0
        var done = 0
        var bytes = 0
        var printedTenths = 0
    }

    private let counts = Mutex(Counts())
    private let terminal = isatty(STDERR_FILENO) != 0
    private let clock = ContinuousClock()
    /// "stored", or "hashed" for files kept in place.
    private let verb: String

    init(verb: String = "stored") {
        self.verb = verb
    }

    /// Starts counting `files` files.
    func begin(files: Int) {
        counts.withLock { counts in
            counts.files = files
            counts.start = clock.now
            counts.lastLine = counts.start
        }
    }

    /// One more file done (stored or skipped), of `bytes` bytes.
    func stored(bytes: Int) {
        let line = counts.withLock { counts -> String? in
            counts.done += 1
            counts.bytes += bytes
            if terminal {
                guard clock.now - counts.lastLine >= .milliseconds(100) else { return nil }
                counts.lastLine = clock.now
                return "\r" + describe(counts)
            }
            let tenths = counts.files > 0 ? counts.done * 10 / counts.files : 10
            guard tenths > counts.printedTenths, counts.done < counts.files else { return nil }
            counts.printedTenths = tenths
            return describe(counts) + "\n"
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Prints the last line.
    func end() {
        let line = counts.withLock { (terminal ? "\r" : "") + describe($0) + "\n" }
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// `stored D/N files, B, R/s`.
    private func describe(_ counts: Counts) -> String {
        let elapsed = clock.now - counts.start
        let seconds = max(1e-6, Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
        return "\(verb) \(counts.done)/\(counts.files) files, \(Self.size(Double(counts.bytes))), \(Self.size(Double(counts.bytes) / seconds))/s"
    }

    /// Bytes in decimal units: `812 MB`, `1.0 GB`.
    static func size(_ bytes: Double) -> String {
        switch bytes {
        case ..<1e3: String(format: "%.0f B", bytes)
        case ..<1e6: String(format: "%.0f kB", bytes / 1e3)
        case ..<1e9: String(format: "%.0f MB", bytes / 1e6)
        default: String(format: "%.1f GB", bytes / 1e9)
        }
    }
}

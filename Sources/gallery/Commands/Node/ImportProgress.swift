import Foundation

/// The progress of `gallery add`'s files on stderr: on a terminal one line rewritten in place
/// (at most ten times a second), else one line per tenth of the files, then a last line:
/// `stored 250/1000 files, 1.0 GB, 812 MB/s` (`hashed` with `--in-place`).
///
/// `@unchecked Sendable`: the counts are guarded by `lock` (the import's threads report here).
final class ImportProgress: @unchecked Sendable {
    private let lock = NSLock()
    private let terminal = isatty(STDERR_FILENO) != 0
    private let clock = ContinuousClock()
    private var start = ContinuousClock.now
    private var lastLine = ContinuousClock.now
    private var files = 0
    private var done = 0
    private var bytes = 0
    private var printedTenths = 0
    /// "stored", or "hashed" for files kept in place.
    private let verb: String

    init(verb: String = "stored") {
        self.verb = verb
    }

    /// Starts counting `files` files.
    func begin(files: Int) {
        lock.withLock {
            self.files = files
            start = clock.now
            lastLine = start
        }
    }

    /// One more file done (stored or skipped), of `bytes` bytes.
    func stored(bytes: Int) {
        let line = lock.withLock { () -> String? in
            done += 1
            self.bytes += bytes
            if terminal {
                guard clock.now - lastLine >= .milliseconds(100) else { return nil }
                lastLine = clock.now
                return "\r" + describe()
            }
            let tenths = files > 0 ? done * 10 / files : 10
            guard tenths > printedTenths, done < files else { return nil }
            printedTenths = tenths
            return describe() + "\n"
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Prints the last line.
    func end() {
        let line = lock.withLock { (terminal ? "\r" : "") + describe() + "\n" }
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// `stored D/N files, B, R/s` (lock held).
    private func describe() -> String {
        let seconds = max(1e-6, Double((clock.now - start).components.attoseconds) / 1e18 + Double((clock.now - start).components.seconds))
        return "\(verb) \(done)/\(files) files, \(Self.size(Double(bytes))), \(Self.size(Double(bytes) / seconds))/s"
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

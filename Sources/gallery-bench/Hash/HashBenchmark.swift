import Foundation
import GalleryModel
import GalleryWire

/// `gallery-bench hash`: the throughput of `SHA256` and `CRC32` over 256 MiB, and of coreutils
/// `sha256sum` over the same bytes for comparison.
///
/// Prints one JSON line per workload: `{"workload", "bytes", "seconds", "bytesPerSecond"}`.
/// The bytes are pseudo-random from a fixed seed and hashed from memory in 1 MiB chunks;
/// `sha256sum` reads them from a temporary file that was just written (so from the page cache),
/// and only its process is timed. Its digest must equal ours, which checks `SHA256` on 256 MiB.
enum HashBenchmark {
    /// The bytes hashed by each workload (256 MiB).
    static let byteCount = 256 << 20

    /// The bytes passed to each `update` call (1 MiB).
    static let chunkByteCount = 1 << 20

    /// Runs the workloads and returns their JSON lines: sha256, sha256sum, crc32.
    static func run() throws -> [String] {
        let data = pseudoRandomData(count: byteCount, seed: 0x5AA2_56)

        // Touch the code and the first chunk once before timing.
        _ = sha256(data.prefix(chunkByteCount))
        let sha = Stopwatch.time { sha256(data) }
        let sum = try sha256sum(data)
        guard sum.digest == SHA256.hex(sha.result) else {
            throw BenchFailure.failed(
                "sha256: digest \(SHA256.hex(sha.result)) differs from sha256sum's \(sum.digest)")
        }
        _ = crc32(data.prefix(chunkByteCount))
        let crc = Stopwatch.time { crc32(data) }

        return [
            line("sha256", seconds: sha.seconds),
            line("sha256sum", seconds: sum.seconds),
            line("crc32", seconds: crc.seconds),
        ]
    }

    /// The SHA-256 of `data`, fed in chunks of `chunkByteCount`.
    private static func sha256(_ data: Data) -> [UInt8] {
        var hasher = SHA256()
        data.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: chunkByteCount) {
                let end = min(start + chunkByteCount, bytes.count)
                hasher.update(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            }
        }
        return hasher.finalize()
    }

    /// The CRC-32 of `data`, fed in chunks of `chunkByteCount`.
    private static func crc32(_ data: Data) -> UInt32 {
        var crc = CRC32()
        data.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: chunkByteCount) {
                let end = min(start + chunkByteCount, bytes.count)
                crc.update(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            }
        }
        return crc.value
    }

    /// Writes `data` to a temporary file, times `sha256sum` on it, deletes the file, and returns
    /// the digest it printed (lowercase hex) with the seconds its process took.
    private static func sha256sum(_ data: Data) throws -> (digest: String, seconds: Double) {
        let executable = try executablePath("sha256sum")
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("gallery-bench-hash-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try data.write(to: file)
        } catch {
            throw BenchFailure.failed("cannot write \(file.path): \(error.localizedDescription)")
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        let timed = try Stopwatch.time {
            do {
                try process.run()
            } catch {
                throw BenchFailure.failed("cannot start \(executable): \(error.localizedDescription)")
            }
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return output
        }
        guard process.terminationStatus == 0 else {
            throw BenchFailure.failed("sha256sum failed (exit status \(process.terminationStatus))")
        }
        // "<64 hex digits>  <path>\n"
        let digest = String(decoding: timed.result.prefix(2 * SHA256.byteCount), as: UTF8.self)
        return (digest, timed.seconds)
    }

    /// The first executable called `name` on `PATH` (or in /usr/bin and /bin without one).
    private static func executablePath(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        throw BenchFailure.failed("\(name) not found on PATH")
    }

    /// `count` pseudo-random bytes from a `SeededGenerator` (a multiple of 8 bytes is filled
    /// word by word).
    private static func pseudoRandomData(count: Int, seed: UInt64) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { PseudoRandomBytes.fill($0, seed: seed) }
        return data
    }

    /// A workload's JSON line, e.g.
    /// `{"workload": "sha256", "bytes": 268435456, "seconds": 1.2, "bytesPerSecond": 223696213}`.
    private static func line(_ workload: String, seconds: Double) -> String {
        let rate = seconds > 0 ? Double(byteCount) / seconds : 0
        return "{\"workload\": \"\(workload)\", \"bytes\": \(byteCount), "
            + "\"seconds\": \(String(format: "%.6f", seconds)), \"bytesPerSecond\": \(Int(rate.rounded()))}"
    }
}

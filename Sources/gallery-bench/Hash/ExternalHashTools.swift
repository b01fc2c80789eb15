import Foundation
import GalleryCrypto

/// The SHA-256 of other programs, for comparison: coreutils `sha256sum` on a file, and
/// `openssl speed -evp sha256` (OpenSSL's best kernel for this CPU, from memory).
enum ExternalHashTools {
    /// The size of the blocks `openssl speed` hashes for the comparison (its largest standard size).
    static let opensslBlockByteCount = 16_384

    /// How long one run of `openssl speed` hashes, in seconds.
    static let opensslSeconds = 1

    /// Writes `data` to a temporary file, times `sha256sum` on it, deletes the file, and returns
    /// the digest it printed (lowercase hex) with the seconds its process took.
    static func sha256sum(_ data: Data) throws -> (digest: String, seconds: Double) {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("gallery-bench-hash-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try data.write(to: file)
        } catch {
            throw BenchFailure.failed("cannot write \(file.path): \(error.localizedDescription)")
        }
        let timed = try Stopwatch.time { try runToEnd(try executablePath("sha256sum"), [file.path]) }
        // "<64 hex digits>  <path>\n"
        let digest = String(decoding: timed.result.prefix(2 * SHA256.byteCount), as: UTF8.self)
        return (digest, timed.seconds)
    }

    /// The bytes per second of `openssl speed -evp sha256` on blocks of `opensslBlockByteCount`,
    /// or nil if there is no `openssl` on `PATH`.
    static func opensslSpeedSHA256() throws -> Double? {
        guard let openssl = try? executablePath("openssl") else { return nil }
        let output = try runToEnd(openssl, [
            "speed", "-seconds", "\(opensslSeconds)", "-bytes", "\(opensslBlockByteCount)", "-evp", "sha256",
        ])
        guard let rate = opensslRate(String(decoding: output, as: UTF8.self), blockByteCount: opensslBlockByteCount) else {
            throw BenchFailure.failed("cannot find the \(opensslBlockByteCount)-byte sha256 figure in openssl speed's output")
        }
        return rate
    }

    /// The bytes per second in the `blockByteCount` column of `openssl speed`'s table, e.g.
    /// `type  16384 bytes` over `sha256  2045909.63k` (thousands of bytes per second).
    static func opensslRate(_ output: String, blockByteCount: Int) -> Double? {
        let rows = output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        guard let header = rows.first(where: { $0.first == "type" }),
              let row = rows.first(where: { $0.first == "sha256" || $0.first == "SHA256" }) else { return nil }
        // The header is "type" then "<size> bytes" pairs; the row is the name then one figure per size.
        let sizes = header.dropFirst().filter { $0 != "bytes" }.map { Int($0) }
        guard let column = sizes.firstIndex(of: blockByteCount), column + 1 < row.count else { return nil }
        let figure = row[column + 1]
        guard figure.hasSuffix("k"), let thousands = Double(figure.dropLast()) else { return nil }
        return thousands * 1_000
    }

    /// Runs `executable` with `arguments` (and `environment` added to this process's) and returns
    /// its standard output; fails unless it exits 0.
    static func runToEnd(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchFailure.failed("cannot start \(executable): \(error.localizedDescription)")
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchFailure.failed("\(executable) \(arguments.joined(separator: " ")) failed (exit status \(process.terminationStatus))")
        }
        return output
    }

    /// The first executable called `name` on `PATH` (or in /usr/bin and /bin without one).
    static func executablePath(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        throw BenchFailure.failed("\(name) not found on PATH")
    }
}

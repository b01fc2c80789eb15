import Foundation
import GalleryCrypto

/// `gallery-bench hash`: the throughput of each `SHA256` kernel and of `CRC32` over 256 MiB, with
/// `openssl speed -evp sha256` and coreutils `sha256sum` measured in the same run for comparison.
///
/// Prints one JSON line per workload. The bytes are pseudo-random from a fixed seed and hashed from
/// memory in 1 MiB chunks. Each SHA-256 kernel hashes them again and again for `rounds` rounds of
/// 1 s; its `bytesPerSecond` is per CPU second of the hashing thread (`wallBytesPerSecond` per
/// wall-clock second), its best round. `openssl speed` (16 KiB blocks, 1 s) runs after each round
/// of the accelerated kernel and divides by its CPU user time too; `sha256-vs-openssl` gives the
/// ratio of the two best figures. `sha256sum` reads the bytes from a temporary file that was just
/// written (so from the page cache), and only its process is timed (wall-clock), as CRC32 is.
/// Every digest must equal the portable kernel's, which checks the kernels on 256 MiB.
enum HashBenchmark {
    /// The bytes hashed by each workload (256 MiB).
    static let byteCount = 256 << 20

    /// The bytes passed to each `update` call (1 MiB).
    static let chunkByteCount = 1 << 20

    /// How many rounds each kernel hashes for (the accelerated one taking turns with OpenSSL);
    /// the fastest counts.
    static let rounds = 3

    /// How long a round hashes, in wall-clock seconds (as long as one `openssl speed` run).
    static let roundSeconds = ExternalHashTools.opensslSeconds

    /// Runs the workloads and returns their JSON lines: sha256-portable, sha256-accelerated,
    /// openssl-sha256, sha256-vs-openssl, sha256sum, crc32.
    static func run() throws -> [String] {
        let data = pseudoRandomData(count: byteCount, seed: 0x5AA2_56)
        var lines: [String] = []

        // Each kernel hashes the bytes again and again for rounds of 1 s (as long as one openssl
        // run), and its rate is bytes per CPU second of the hashing thread, as `openssl speed`
        // divides by its CPU user time: on this shared machine, wall-clock time also counts the
        // time the thread waits for a CPU. The accelerated kernel and openssl take turns, so a
        // burst of load hits both alike; each side's best round counts.
        let portable = bestRound(data, kernel: .portable, rounds: rounds)
        lines.append(line("sha256-portable", portable, kernel: .portable))
        let kernel = SHA256.acceleratedKernel ?? .portable
        var fastest: Round?
        var openssl: [Double] = []
        for _ in 0..<rounds {
            let round = hashRound(data, kernel: kernel)
            guard round.digest == portable.digest else {
                throw BenchFailure.failed("sha256: the \(kernel.rawValue) digest \(SHA256.hex(round.digest)) "
                    + "differs from the portable kernel's \(SHA256.hex(portable.digest))")
            }
            if round.bytesPerCPUSecond > fastest?.bytesPerCPUSecond ?? 0 { fastest = round }
            guard let rate = try ExternalHashTools.opensslSpeedSHA256() else { continue }
            openssl.append(rate)
        }
        let best = fastest ?? portable
        if kernel != .portable {
            lines.append(line("sha256-accelerated", best, kernel: kernel))
        } else {
            lines.append("{\"workload\": \"sha256-accelerated\", \"kernel\": null, \"skipped\": \"this CPU has no SHA instructions\"}")
        }
        if let bestOpenSSL = openssl.max() {
            lines.append("{\"workload\": \"openssl-sha256\", \"blockBytes\": \(ExternalHashTools.opensslBlockByteCount), "
                + "\"bytesPerSecond\": \(Int(bestOpenSSL.rounded())), \"runs\": \(openssl.map { Int($0.rounded()) })}")
            lines.append("{\"workload\": \"sha256-vs-openssl\", \"kernel\": \"\(kernel.rawValue)\", "
                + "\"bytesPerSecond\": \(Int(best.bytesPerCPUSecond.rounded())), "
                + "\"opensslBytesPerSecond\": \(Int(bestOpenSSL.rounded())), "
                + "\"ratio\": \(String(format: "%.3f", best.bytesPerCPUSecond / bestOpenSSL))}")
        } else {
            lines.append("{\"workload\": \"openssl-sha256\", \"skipped\": \"openssl not found on PATH\"}")
        }

        let sum = try ExternalHashTools.sha256sum(data)
        guard sum.digest == SHA256.hex(portable.digest) else {
            throw BenchFailure.failed(
                "sha256: digest \(SHA256.hex(portable.digest)) differs from sha256sum's \(sum.digest)")
        }
        lines.append(line("sha256sum", seconds: sum.seconds))

        _ = crc32(data.prefix(chunkByteCount))
        let crc = Stopwatch.time { crc32(data) }
        lines.append(line("crc32", seconds: crc.seconds))
        return lines
    }

    /// `gallery-bench hash --kernel`: which kernel `SHA256()` uses in this process (after
    /// `GALLERY_SHA256_PORTABLE`) and which one the CPU has, as one JSON line.
    static func kernelLine() -> String {
        let accelerated = SHA256.acceleratedKernel.map { "\"\($0.rawValue)\"" } ?? "null"
        return "{\"kernel\": \"\(SHA256().kernel.rawValue)\", \"accelerated\": \(accelerated)}"
    }

    /// One round of a kernel: the digest, the bytes hashed, and the rates per CPU second of this
    /// thread and per wall-clock second.
    struct Round {
        var kernel: SHA256.Kernel
        var digest: [UInt8]
        var bytes: Int
        var bytesPerCPUSecond: Double
        var bytesPerWallSecond: Double
    }

    /// Hashes all of `data` with `kernel` again and again until a wall-clock second has passed.
    private static func hashRound(_ data: Data, kernel: SHA256.Kernel) -> Round {
        _ = sha256(data.prefix(chunkByteCount), kernel: kernel)
        var digest: [UInt8] = []
        var hashed = 0
        let cpuBefore = CPUTime.currentThread()
        let timed = Stopwatch.time {
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(roundSeconds))
            repeat {
                digest = sha256(data, kernel: kernel)
                hashed += data.count
            } while clock.now < deadline
        }
        let cpuSeconds = max(CPUTime.currentThread() - cpuBefore, 1e-9)
        return Round(kernel: kernel, digest: digest, bytes: hashed,
                     bytesPerCPUSecond: Double(hashed) / cpuSeconds, bytesPerWallSecond: Double(hashed) / timed.seconds)
    }

    /// The fastest (per CPU second) of `rounds` rounds of `kernel`.
    private static func bestRound(_ data: Data, kernel: SHA256.Kernel, rounds: Int) -> Round {
        var best = hashRound(data, kernel: kernel)
        for _ in 1..<rounds {
            let round = hashRound(data, kernel: kernel)
            if round.bytesPerCPUSecond > best.bytesPerCPUSecond { best = round }
        }
        return best
    }

    /// The SHA-256 of `data` with `kernel` (one this CPU has), fed in chunks of `chunkByteCount`.
    private static func sha256(_ data: Data, kernel: SHA256.Kernel) -> [UInt8] {
        guard var hasher = SHA256(kernel: kernel) else { return [] }
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

    /// `count` pseudo-random bytes from a `SeededGenerator` (a multiple of 8 bytes is filled
    /// word by word).
    private static func pseudoRandomData(count: Int, seed: UInt64) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { PseudoRandomBytes.fill($0, seed: seed) }
        return data
    }

    /// A kernel's JSON line, e.g. `{"workload": "sha256-accelerated", "kernel": "x86-sha-ni",
    /// "bytes": 2147483648, "bytesPerSecond": 2021111003, "wallBytesPerSecond": 1950000000}`
    /// (`bytesPerSecond` per CPU second).
    private static func line(_ workload: String, _ round: Round, kernel: SHA256.Kernel) -> String {
        "{\"workload\": \"\(workload)\", \"kernel\": \"\(kernel.rawValue)\", \"bytes\": \(round.bytes), "
            + "\"bytesPerSecond\": \(Int(round.bytesPerCPUSecond.rounded())), "
            + "\"wallBytesPerSecond\": \(Int(round.bytesPerWallSecond.rounded()))}"
    }

    /// A workload timed once over all the bytes, e.g. `{"workload": "crc32", "bytes": 268435456,
    /// "seconds": 0.15, "bytesPerSecond": 1746711144}`.
    private static func line(_ workload: String, seconds: Double) -> String {
        let rate = seconds > 0 ? Double(byteCount) / seconds : 0
        return "{\"workload\": \"\(workload)\", \"bytes\": \(byteCount), "
            + "\"seconds\": \(String(format: "%.6f", seconds)), \"bytesPerSecond\": \(Int(rate.rounded()))}"
    }
}

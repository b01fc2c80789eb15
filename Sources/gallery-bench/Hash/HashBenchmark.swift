import Foundation
import GalleryModel
import GalleryWire

/// `gallery-bench hash`: the throughput of each `SHA256` kernel and of `CRC32` over 256 MiB, with
/// `openssl speed -evp sha256` and coreutils `sha256sum` measured in the same run for comparison.
///
/// Prints one JSON line per workload: `{"workload", "bytes", "seconds", "bytesPerSecond"}`, the
/// SHA-256 lines with the `"kernel"`, then `sha256-vs-openssl` with the ratio of our default
/// kernel to OpenSSL. The bytes are pseudo-random from a fixed seed and hashed from memory in 1 MiB
/// chunks; each kernel's figure is its best of `passes` passes (the machine is shared). OpenSSL
/// hashes 16 KiB blocks for 3 s (its own figure); `sha256sum` reads the bytes from a temporary
/// file that was just written (so from the page cache), and only its process is timed. Every
/// digest must equal the portable kernel's, which checks the kernels on 256 MiB.
enum HashBenchmark {
    /// The bytes hashed by each workload (256 MiB).
    static let byteCount = 256 << 20

    /// The bytes passed to each `update` call (1 MiB).
    static let chunkByteCount = 1 << 20

    /// How many times each SHA-256 kernel hashes the bytes; the fastest pass counts.
    static let passes = 3

    /// Runs the workloads and returns their JSON lines: sha256-portable, sha256-accelerated,
    /// openssl-sha256, sha256-vs-openssl, sha256sum, crc32.
    static func run() throws -> [String] {
        let data = pseudoRandomData(count: byteCount, seed: 0x5AA2_56)
        var lines: [String] = []

        let portable = timeSHA256(data, kernel: .portable)
        lines.append(line("sha256-portable", seconds: portable.seconds, kernel: .portable))
        var fastest = (kernel: SHA256.Kernel.portable, seconds: portable.seconds)
        if let kernel = SHA256.acceleratedKernel {
            let accelerated = timeSHA256(data, kernel: kernel)
            guard accelerated.digest == portable.digest else {
                throw BenchFailure.failed("sha256: the \(kernel.rawValue) digest \(SHA256.hex(accelerated.digest)) "
                    + "differs from the portable kernel's \(SHA256.hex(portable.digest))")
            }
            lines.append(line("sha256-accelerated", seconds: accelerated.seconds, kernel: kernel))
            fastest = (kernel, accelerated.seconds)
        } else {
            lines.append("{\"workload\": \"sha256-accelerated\", \"kernel\": null, \"skipped\": \"this CPU has no SHA instructions\"}")
        }

        if let openssl = try ExternalHashTools.opensslSpeedSHA256() {
            lines.append("{\"workload\": \"openssl-sha256\", \"blockBytes\": \(ExternalHashTools.opensslBlockByteCount), "
                + "\"bytesPerSecond\": \(Int(openssl.rounded()))}")
            let ours = Double(byteCount) / fastest.seconds
            lines.append("{\"workload\": \"sha256-vs-openssl\", \"kernel\": \"\(fastest.kernel.rawValue)\", "
                + "\"bytesPerSecond\": \(Int(ours.rounded())), \"opensslBytesPerSecond\": \(Int(openssl.rounded())), "
                + "\"ratio\": \(String(format: "%.3f", ours / openssl))}")
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

    /// The SHA-256 of `data` with `kernel`, fed in chunks of `chunkByteCount`, with the fastest of
    /// `passes` passes (after one warm-up chunk).
    private static func timeSHA256(_ data: Data, kernel: SHA256.Kernel) -> (digest: [UInt8], seconds: Double) {
        _ = sha256(data.prefix(chunkByteCount), kernel: kernel)
        var best = Stopwatch.time { sha256(data, kernel: kernel) }
        for _ in 1..<passes {
            let pass = Stopwatch.time { sha256(data, kernel: kernel) }
            if pass.seconds < best.seconds { best = pass }
        }
        return (best.result, best.seconds)
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

    /// A workload's JSON line, e.g. `{"workload": "sha256-accelerated", "kernel": "x86-sha-ni",
    /// "bytes": 268435456, "seconds": 0.14, "bytesPerSecond": 1917396114}`.
    private static func line(_ workload: String, seconds: Double, kernel: SHA256.Kernel? = nil) -> String {
        let rate = seconds > 0 ? Double(byteCount) / seconds : 0
        let kernelField = kernel.map { "\"kernel\": \"\($0.rawValue)\", " } ?? ""
        return "{\"workload\": \"\(workload)\", \(kernelField)\"bytes\": \(byteCount), "
            + "\"seconds\": \(String(format: "%.6f", seconds)), \"bytesPerSecond\": \(Int(rate.rounded()))}"
    }
}

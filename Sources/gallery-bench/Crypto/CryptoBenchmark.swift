import Foundation
import GalleryCrypto

/// `gallery-bench crypto`: ChaCha20-Poly1305 seal throughput, X25519 operations and Ed25519 sign and
/// verify per second, with `openssl speed` measured in the same run for comparison.
///
/// Prints one JSON line per workload. Each of ours runs for `rounds` rounds of 1 s and counts per
/// CPU second of the benchmarking thread (as `openssl speed` divides by its user CPU time); the best
/// round counts. Seal is measured on 16 KiB records (openssl's largest standard block) and on a
/// full Noise record (65,519 bytes); ChaCha20 (with each kernel this CPU runs) and Poly1305 alone
/// show where the time goes; the seal lines use the default kernel (named in each line).
/// OpenSSL is measured twice: as installed (its assembly for this CPU, up to AVX-512), and with
/// `OPENSSL_ia32cap=0`, which turns off its SIMD paths (its plain x86-64 assembly remains).
enum CryptoBenchmark {
    /// How many 1-second rounds each of our workloads runs; the best counts.
    static let rounds = 3
    /// The record size compared with `openssl speed -bytes`.
    static let recordByteCount = 16_384

    /// Runs the workloads and returns their JSON lines.
    static func run() throws -> [String] {
        var lines: [String] = []
        let key = [UInt8](repeating: 0x42, count: 32)
        let nonce = [UInt8](repeating: 7, count: 12)
        let aead = try ChaCha20Poly1305(key: key)
        let cipher = try ChaCha20(key: key, nonce: nonce)
        let record = (0..<recordByteCount).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let noiseRecord = (0..<NoiseTransport.maxPlaintextByteCount).map { UInt8(truncatingIfNeeded: $0 &* 7) }

        let kernel = "\"kernel\": \"\(aead.kernel.rawValue)\", "
        let seal = try best { _ = try aead.seal(record, nonce: nonce); return record.count }
        lines.append(rateLine("chacha20-poly1305-seal", bytes: recordByteCount, rate: seal, extra: kernel))
        let sealNoise = try best { _ = try aead.seal(noiseRecord, nonce: nonce); return noiseRecord.count }
        lines.append(rateLine("chacha20-poly1305-seal", bytes: noiseRecord.count, rate: sealNoise, extra: kernel))
        for other in ChaCha20.availableKernels where other != aead.kernel {
            let otherAEAD = try ChaCha20Poly1305(key: key, kernel: other)
            let sealOther = try best { _ = try otherAEAD.seal(record, nonce: nonce); return record.count }
            lines.append(rateLine("chacha20-poly1305-seal", bytes: recordByteCount, rate: sealOther, extra: "\"kernel\": \"\(other.rawValue)\", "))
        }
        for chachaKernel in ChaCha20.Kernel.allCases {
            guard let cipher = cipher.using(chachaKernel) else { continue }
            let chacha = try best { _ = try cipher.encrypt(record, counter: 1); return record.count }
            lines.append(rateLine("chacha20", bytes: recordByteCount, rate: chacha, extra: "\"kernel\": \"\(chachaKernel.rawValue)\", "))
        }
        // Poly1305 has two loops: the portable one and one wide one (the same for every wide kernel).
        for polyKernel in aead.kernel == .portable ? [ChaCha20.Kernel.portable] : [.portable, aead.kernel] {
            let poly = try best { _ = try Poly1305.authenticationCode(for: record, key: key, kernel: polyKernel); return record.count }
            lines.append(rateLine("poly1305", bytes: recordByteCount, rate: poly, extra: "\"kernel\": \"\(polyKernel.rawValue)\", "))
        }

        if let openssl = try opensslAEAD(environment: [:]) {
            lines.append(rateLine("openssl-chacha20-poly1305", bytes: recordByteCount, rate: openssl))
            lines.append("{\"workload\": \"chacha20-poly1305-vs-openssl\", \"ratio\": \(String(format: "%.3f", seal / openssl))}")
        } else {
            lines.append("{\"workload\": \"openssl-chacha20-poly1305\", \"skipped\": \"openssl not found on PATH\"}")
        }
        if let plain = try opensslAEAD(environment: ["OPENSSL_ia32cap": "0"]) {
            lines.append(rateLine("openssl-chacha20-poly1305-no-simd", bytes: recordByteCount, rate: plain))
            lines.append("{\"workload\": \"chacha20-poly1305-vs-openssl-no-simd\", \"ratio\": \(String(format: "%.3f", seal / plain))}")
        }

        var scalar = X25519.PrivateKey().rawRepresentation
        let point = X25519.PrivateKey().publicKey.rawRepresentation
        let x25519 = try best { scalar = try X25519.scalarMultiply(scalar, point); return 1 }
        lines.append("{\"workload\": \"x25519\", \"opsPerSecond\": \(Int(x25519.rounded()))}")
        if let openssl = try opensslX25519() {
            lines.append("{\"workload\": \"openssl-x25519\", \"opsPerSecond\": \(Int(openssl.rounded())), "
                + "\"ratio\": \(String(format: "%.3f", x25519 / openssl))}")
        }
        lines += try ed25519Lines()
        return lines
    }

    /// Ed25519 sign and verify of a 64-byte message, operations per CPU second (verify with the key
    /// decoded once, as a node holds its peers' keys, and decoded every time, as OpenSSL does), and
    /// `openssl speed ed25519` in the same run.
    private static func ed25519Lines() throws -> [String] {
        var lines: [String] = []
        let key = Ed25519.PrivateKey()
        var message = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let signature = key.signature(for: message)
        let sign = best {
            message[0] &+= 1
            _ = key.signature(for: message)
            return 1
        }
        message[0] = 0
        let signed = key.signature(for: message)
        var verified = 0
        let verify = best {
            if key.publicKey.isValidSignature(signed, for: message) { verified += 1 }
            return 1
        }
        // As `openssl speed` does it: the public key decoded (a square root) for every signature.
        let encodedKey = key.publicKey.rawRepresentation
        let verifyDecoding = try best {
            if try Ed25519.PublicKey(rawRepresentation: encodedKey).isValidSignature(signed, for: message) { verified += 1 }
            return 1
        }
        guard verified > 0, signature.count == 64 else { throw BenchFailure.failed("Ed25519 signatures do not verify") }
        let opensslRates = try opensslEd25519()
        for (name, rate, theirs) in [
            ("ed25519-sign", sign, opensslRates?.sign), ("ed25519-verify", verify, opensslRates?.verify),
            ("ed25519-verify-decoding-key", verifyDecoding, opensslRates?.verify),
        ] {
            var line = "{\"workload\": \"\(name)\", \"opsPerSecond\": \(Int(rate.rounded()))"
            if let theirs {
                line += ", \"opensslOpsPerSecond\": \(Int(theirs.rounded())), \"ratio\": \(String(format: "%.3f", rate / theirs))"
            }
            lines.append(line + "}")
        }
        return lines
    }

    /// `openssl speed ed25519`: sign and verify operations per second; nil without openssl.
    private static func opensslEd25519() throws -> (sign: Double, verify: Double)? {
        guard let output = try openssl(["speed", "-seconds", "1", "ed25519"], environment: [:]) else { return nil }
        let row = output.split(separator: "\n").last { $0.contains("Ed25519") }
        let figures = row?.split(separator: " ").suffix(2).compactMap { Double($0) } ?? []
        guard figures.count == 2 else {
            throw BenchFailure.failed("cannot find the Ed25519 figures in openssl speed's output")
        }
        return (figures[0], figures[1])
    }

    /// The best of `rounds` rounds of 1 s of `body`, in units (the sum of what `body` returns) per CPU second.
    private static func best(_ body: () throws -> Int) rethrows -> Double {
        var best = 0.0
        for _ in 0..<rounds {
            _ = try body()
            var units = 0
            let cpuBefore = CPUTime.currentThread()
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .seconds(1))
            repeat {
                units += try body()
            } while clock.now < deadline
            best = max(best, Double(units) / max(CPUTime.currentThread() - cpuBefore, 1e-9))
        }
        return best
    }

    /// `gallery-bench crypto --kernel`: which ChaCha20 kernel `ChaCha20Poly1305(key:)` uses in this
    /// process (after `GALLERY_CHACHA20_PORTABLE`) and which one the CPU has, as one JSON line.
    static func kernelLine() -> String {
        let accelerated = ChaCha20.acceleratedKernel.map { "\"\($0.rawValue)\"" } ?? "null"
        let kernel = (try? ChaCha20Poly1305(key: [UInt8](repeating: 0, count: 32)).kernel.rawValue) ?? "none"
        return "{\"kernel\": \"\(kernel)\", \"accelerated\": \(accelerated)}"
    }

    /// A throughput line: `{"workload": ..., "recordBytes": ..., "bytesPerSecond": ..., "megabytesPerSecond": ...}`
    /// (`extra`, fields with a trailing comma and space, after the workload).
    private static func rateLine(_ workload: String, bytes: Int, rate: Double, extra: String = "") -> String {
        "{\"workload\": \"\(workload)\", \(extra)\"recordBytes\": \(bytes), \"bytesPerSecond\": \(Int(rate.rounded())), "
            + "\"megabytesPerSecond\": \(String(format: "%.1f", rate / 1e6))}"
    }

    /// `openssl speed -evp chacha20-poly1305` on 16 KiB blocks, in bytes per second; nil without openssl.
    private static func opensslAEAD(environment: [String: String]) throws -> Double? {
        guard let output = try openssl(["speed", "-seconds", "1", "-bytes", "\(recordByteCount)", "-evp", "chacha20-poly1305"],
                                       environment: environment) else { return nil }
        let row = output.split(separator: "\n").last { $0.lowercased().hasPrefix("chacha20-poly1305") }
        guard let figure = row?.split(separator: " ").last, figure.hasSuffix("k"), let thousands = Double(figure.dropLast()) else {
            throw BenchFailure.failed("cannot find the chacha20-poly1305 figure in openssl speed's output")
        }
        return thousands * 1000
    }

    /// `openssl speed ecdhx25519` in operations per second; nil without openssl.
    private static func opensslX25519() throws -> Double? {
        guard let output = try openssl(["speed", "-seconds", "1", "ecdhx25519"], environment: [:]) else { return nil }
        let row = output.split(separator: "\n").last { $0.contains("X25519") }
        guard let figure = row?.split(separator: " ").last, let rate = Double(figure) else {
            throw BenchFailure.failed("cannot find the X25519 figure in openssl speed's output")
        }
        return rate
    }

    /// The standard output of `openssl` with `arguments` and extra `environment`; nil if it is not on PATH.
    private static func openssl(_ arguments: [String], environment: [String: String]) throws -> String? {
        guard let executable = try? ExternalHashTools.executablePath("openssl") else { return nil }
        let output = try ExternalHashTools.runToEnd(executable, arguments, environment: environment)
        return String(decoding: output, as: UTF8.self)
    }
}

import Foundation
@testable import GalleryCrypto
import GallerySimulation
import Testing

/// Each SHA-256 kernel against NIST's vectors, the hardware kernel against the portable one on
/// random inputs, and the choice of the default kernel (`GALLERY_SHA256_PORTABLE`).
///
/// On a CPU without SHA instructions the tests of the accelerated kernel are reported as skipped,
/// with the reason, rather than passing without having run.
@Suite("SHA-256 kernels")
struct SHA256KernelTests {
    /// The hardware kernel of this CPU, if any.
    static let accelerated = SHA256.acceleratedKernel

    /// Why the accelerated tests are skipped where they are.
    static let noAcceleration: Comment =
        "SKIPPED: this CPU has no SHA instructions (no sha_ni+sse4.1, no ARMv8 SHA-2): the accelerated kernel is NOT tested"

    /// The FIPS 180-4 examples (and "abc" and the 448- and 896-bit messages of its appendix).
    static let fipsExamples: [(message: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ]

    /// The digest of `message` with `kernel`, fed as `pieces` consecutive updates (split where
    /// `splits` says, each offset clamped to the message).
    static func digest(_ message: [UInt8], kernel: SHA256.Kernel, splits: [Int] = []) throws -> [UInt8] {
        var hasher = try #require(SHA256(kernel: kernel), "no \(kernel) kernel on this CPU")
        var start = 0
        for split in splits.map({ min(max($0, 0), message.count) }).sorted() {
            message[start..<split].withUnsafeBytes { hasher.update($0) }
            start = split
        }
        message[start...].withUnsafeBytes { hasher.update($0) }
        #expect(hasher.kernel == kernel)
        return hasher.finalize()
    }

    /// Checks `kernel` against every vector: NIST CAVP short and long messages, the FIPS 180-4
    /// examples, and one million "a" in one piece and in uneven pieces.
    static func checkVectors(_ kernel: SHA256.Kernel) throws {
        for vector in SHA256TestVectors.shortMessages + SHA256TestVectors.longMessages {
            let message = try #require(SHA256.bytes(hex: vector.message))
            #expect(SHA256.hex(try digest(message, kernel: kernel)) == vector.digest, "\(kernel): \(vector.name)")
            // The same message through the partial-block buffer: split at its middle and one byte in.
            let splits = [1, message.count / 2]
            #expect(SHA256.hex(try digest(message, kernel: kernel, splits: splits)) == vector.digest,
                    "\(kernel): \(vector.name) in three updates")
        }
        for example in fipsExamples {
            #expect(SHA256.hex(try digest(Array(example.message.utf8), kernel: kernel)) == example.digest,
                    "\(kernel): \"\(example.message)\"")
        }
        let millionA = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let millionDigest = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(SHA256.hex(try digest(millionA, kernel: kernel)) == millionDigest, "\(kernel): one million a")
        let uneven = Array(stride(from: 1, to: millionA.count, by: 9_973).map { $0 + $0 % 63 })
        #expect(SHA256.hex(try digest(millionA, kernel: kernel, splits: uneven)) == millionDigest,
                "\(kernel): one million a in uneven pieces")
    }

    @Test("Portable kernel: NIST CAVP ShortMsg and LongMsg, FIPS 180-4 examples, one million a")
    func portableVectors() throws {
        try Self.checkVectors(.portable)
    }

    @Test("Accelerated kernel: NIST CAVP ShortMsg and LongMsg, FIPS 180-4 examples, one million a",
          .enabled(if: accelerated != nil, noAcceleration))
    func acceleratedVectors() throws {
        try Self.checkVectors(try #require(Self.accelerated))
    }

    @Test("Random messages of 0...10,000 bytes: the accelerated kernel equals the portable one, whole and in random pieces",
          .enabled(if: accelerated != nil, noAcceleration))
    func acceleratedAgreesWithPortable() throws {
        let accelerated = try #require(Self.accelerated)
        var generator = SeededGenerator(seed: 0x5AA2_5617)
        // Every length around the first blocks, then random lengths up to 10,000.
        let lengths = Array(0...200) + (0..<300).map { _ in Int.random(in: 0...10_000, using: &generator) }
        var mismatches: [String] = []
        for length in lengths {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = try Self.digest(message, kernel: .portable)
            let splits = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                Int.random(in: 0...length, using: &generator)
            }
            if try Self.digest(message, kernel: accelerated) != expected {
                mismatches.append("\(accelerated) length \(length)")
            }
            if try Self.digest(message, kernel: accelerated, splits: splits) != expected {
                mismatches.append("\(accelerated) length \(length) split at \(splits.sorted())")
            }
            if try Self.digest(message, kernel: .portable, splits: splits) != expected {
                mismatches.append("portable length \(length) split at \(splits.sorted())")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, the first: \(mismatches.prefix(5))")
    }

    @Test("GALLERY_SHA256_PORTABLE set to anything but empty or 0 makes the portable kernel the default")
    func environmentChoosesTheKernel() {
        let variable = SHA256.portableEnvironmentVariable
        #expect(variable == "GALLERY_SHA256_PORTABLE")
        let hardwareOrPortable = Self.accelerated ?? .portable
        #expect(SHA256.defaultKernel(environment: [:]) == hardwareOrPortable)
        #expect(SHA256.defaultKernel(environment: [variable: ""]) == hardwareOrPortable)
        #expect(SHA256.defaultKernel(environment: [variable: "0"]) == hardwareOrPortable)
        #expect(SHA256.defaultKernel(environment: [variable: "1"]) == .portable)
        #expect(SHA256.defaultKernel(environment: [variable: "yes"]) == .portable)
        // This process's own choice follows its environment, and SHA256() uses it.
        #expect(SHA256.defaultKernel == SHA256.defaultKernel(environment: ProcessInfo.processInfo.environment))
        #expect(SHA256().kernel == SHA256.defaultKernel)
    }

    @Test("A hasher can be made for the portable kernel and this CPU's own kernel only")
    func onlyAvailableKernels() {
        #expect(SHA256(kernel: .portable)?.kernel == .portable)
        for kernel in SHA256.Kernel.allCases where kernel != .portable {
            #expect((SHA256(kernel: kernel) != nil) == (kernel == Self.accelerated), "\(kernel)")
        }
    }
}

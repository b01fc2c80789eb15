import Foundation
@testable import GalleryCrypto
import GallerySimulation
import Testing

/// Each ChaCha20-Poly1305 kernel against RFC 8439's vectors (ChaCha20, Poly1305 and the AEAD), the
/// AVX2 kernels against the portable ones on random lengths, offsets, counters and keys, and the
/// choice of the default kernel (`GALLERY_CHACHA20_PORTABLE`).
///
/// On a CPU without AVX2 the tests of the wide kernel are reported as skipped, with the reason,
/// rather than passing without having run.
@Suite("ChaCha20 kernels")
struct ChaCha20KernelTests {
    /// The wide kernel of this CPU, if any.
    static let accelerated = ChaCha20.acceleratedKernel

    /// Why the accelerated tests are skipped where they are.
    static let noAcceleration: Comment =
        "SKIPPED: this CPU (or OS) has no AVX2: the wide ChaCha20 kernel is NOT tested"

    /// Every wide kernel this CPU runs (AVX2, and AVX-512VL where it has it).
    static let wideKernels = ChaCha20.availableKernels.filter { $0 != .portable }

    /// RFC 8439's ChaCha20 and AEAD vectors, and its block function, through `kernel`.
    static func checkVectors(_ kernel: ChaCha20.Kernel) throws {
        let block = try #require(try ChaCha20(key: Array(0...31), nonce: hex("000000090000004a00000000")).using(kernel))
        #expect(hex(block.block(counter: 1)) == "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e")
        for vector in RFC8439Vectors.ciphers {
            let cipher = try #require(try ChaCha20(key: hex(vector.key), nonce: hex(vector.nonce)).using(kernel))
            #expect(cipher.kernel == kernel)
            #expect(hex(try cipher.encrypt(hex(vector.plaintext), counter: vector.counter)) == vector.ciphertext, "\(kernel) \(vector.name)")
            #expect(hex(try cipher.encrypt(hex(vector.ciphertext), counter: vector.counter)) == vector.plaintext, "\(kernel) \(vector.name)")
        }
        for vector in RFC8439Vectors.keyGenerations {
            let cipher = try #require(try ChaCha20(key: hex(vector.key), nonce: hex(vector.nonce)).using(kernel))
            #expect(hex(Array(cipher.block(counter: 0).prefix(32))) == vector.oneTimeKey, "\(kernel) \(vector.name)")
        }
        for vector in RFC8439Vectors.authenticators {
            let message = hex(vector.message)
            #expect(hex(try Poly1305.authenticationCode(for: message, key: hex(vector.key), kernel: kernel)) == vector.tag, "\(kernel) \(vector.name)")
            var poly = try Poly1305(key: hex(vector.key), kernel: kernel)
            #expect(poly.kernel == kernel)
            for start in stride(from: 0, to: message.count, by: 7) { poly.update(Array(message[start..<min(start + 7, message.count)])) }
            #expect(hex(poly.finalize()) == vector.tag, "\(kernel) \(vector.name) in pieces of 7")
        }
        for vector in RFC8439Vectors.aeads {
            let aead = try ChaCha20Poly1305(key: hex(vector.key), kernel: kernel)
            #expect(aead.kernel == kernel)
            let sealed = try aead.seal(hex(vector.plaintext), nonce: hex(vector.nonce), authenticating: hex(vector.additionalData))
            #expect(hex(sealed) == vector.sealed, "\(kernel) \(vector.name)")
            let opened = try aead.open(hex(vector.sealed), nonce: hex(vector.nonce), authenticating: hex(vector.additionalData))
            #expect(hex(opened) == vector.plaintext, "\(kernel) \(vector.name)")
        }
    }

    @Test("Portable kernel: RFC 8439 block function, ChaCha20, Poly1305, key generation and AEAD vectors")
    func portableVectors() throws {
        try Self.checkVectors(.portable)
    }

    @Test("Wide kernels (AVX2, AVX-512VL): RFC 8439 block function, ChaCha20, Poly1305, key generation and AEAD vectors",
          .enabled(if: accelerated != nil, noAcceleration), arguments: wideKernels)
    func acceleratedVectors(kernel: ChaCha20.Kernel) throws {
        try Self.checkVectors(kernel)
    }

    @Test("Random lengths 0...2,000 and large ones, unaligned input and output, in place, counters near 2^32: each wide kernel equals portable",
          .enabled(if: accelerated != nil, noAcceleration), arguments: wideKernels)
    func acceleratedEqualsPortable(wide: ChaCha20.Kernel) throws {
        var generator = SeededGenerator(seed: 0xA5_C4AC_4A20)
        let source = (0..<(300_000 + 64)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var mismatches: [String] = []
        let lengths = Array(0...2000) + [4095, 4096, 4097, 65_519, 65_536, 100_003, 262_144 + 37]
        for (round, length) in lengths.enumerated() {
            let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let portable = try ChaCha20(key: key, nonce: nonce).using(.portable)!
            let accelerated = try #require(portable.using(wide))
            // Every third message starts a few blocks short of 2^32 - 1 (as far as its length allows).
            let blocks = UInt32((length + 63) / 64)
            let counter = round % 3 == 0 ? UInt32.max - blocks - UInt32.random(in: 0...9, using: &generator) + 1
                : UInt32.random(in: 0...UInt32.max - blocks, using: &generator)
            let inputOffset = Int.random(in: 0...31, using: &generator)
            let outputOffset = Int.random(in: 0...31, using: &generator)
            let expected: [UInt8] = source.withUnsafeBytes { bytes in
                [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                    if length > 0 {
                        portable.xor(UnsafeRawBufferPointer(rebasing: bytes[inputOffset..<(inputOffset + length)]),
                                     into: UnsafeMutableRawPointer(buffer.baseAddress!), counter: counter)
                    }
                    count = length
                }
            }
            var output = [UInt8](repeating: 0xEE, count: length + 64)
            source.withUnsafeBytes { bytes in
                output.withUnsafeMutableBytes { out in
                    accelerated.xor(UnsafeRawBufferPointer(rebasing: bytes[inputOffset..<(inputOffset + length)]),
                                    into: out.baseAddress! + outputOffset, counter: counter)
                }
            }
            if Array(output[outputOffset..<(outputOffset + length)]) != expected {
                mismatches.append("length \(length) counter \(counter) offsets \(inputOffset)/\(outputOffset)")
            }
            // Nothing written past the end or before the start.
            if output[..<outputOffset].contains(where: { $0 != 0xEE }) || output[(outputOffset + length)...].contains(where: { $0 != 0xEE }) {
                mismatches.append("length \(length): bytes written outside the output")
            }
            // In place.
            var inPlace = Array(source[inputOffset..<(inputOffset + length)])
            inPlace.withUnsafeMutableBytes { bytes in
                if let base = bytes.baseAddress { accelerated.xor(UnsafeRawBufferPointer(bytes), into: base, counter: counter) }
            }
            if inPlace != expected { mismatches.append("length \(length) counter \(counter) in place") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, the first: \(mismatches.prefix(5))")
    }

    @Test("Poly1305: random keys and lengths 0...2,000 and large, whole and in random pieces, and all-ones keys and messages: wide equals portable",
          .enabled(if: accelerated != nil, noAcceleration), arguments: wideKernels)
    func poly1305AcceleratedEqualsPortable(wide: ChaCha20.Kernel) throws {
        var generator = SeededGenerator(seed: 0x9017_1305)
        let source = (0..<(200_000 + 16)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let ones = [UInt8](repeating: 0xFF, count: 100_000)
        var mismatches: [String] = []
        for (round, length) in (Array(0...2000) + [4096, 16_383, 65_519, 65_536, 200_000]).enumerated() {
            // Every fifth key is all ones (r as large as clamping allows, s all ones), every seventh
            // message all ones (the largest limbs): the carries at their worst.
            let key = round % 5 == 0 ? [UInt8](repeating: 0xFF, count: 32) : (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let offset = Int.random(in: 0...15, using: &generator)
            let message = round % 7 == 0 ? Array(ones.prefix(min(length, ones.count))) : Array(source[offset..<(offset + length)])
            let expected = try Poly1305.authenticationCode(for: message, key: key, kernel: .portable)
            if try Poly1305.authenticationCode(for: message, key: key, kernel: wide) != expected {
                mismatches.append("length \(message.count) whole")
            }
            var poly = try Poly1305(key: key, kernel: wide)
            var start = 0
            while start < message.count {
                let end = min(message.count, start + Int.random(in: 1...700, using: &generator))
                poly.update(Array(message[start..<end]))
                start = end
            }
            if poly.finalize() != expected { mismatches.append("length \(message.count) in pieces") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, the first: \(mismatches.prefix(5))")
    }

    @Test("Random AEAD round trips: a wide kernel seals what portable opens and the other way round",
          .enabled(if: accelerated != nil, noAcceleration), arguments: wideKernels)
    func aeadAcrossKernels(wide: ChaCha20.Kernel) throws {
        var generator = SeededGenerator(seed: 0x5EA1_0B3D)
        for length in [0, 1, 15, 16, 17, 63, 64, 255, 256, 511, 512, 513, 1023, 1999, 16_384, 65_519] {
            let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let aad = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let plaintext = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let portable = try ChaCha20Poly1305(key: key, kernel: .portable)
            let accelerated = try ChaCha20Poly1305(key: key, kernel: wide)
            let sealed = try accelerated.seal(plaintext, nonce: nonce, authenticating: aad)
            #expect(sealed == (try portable.seal(plaintext, nonce: nonce, authenticating: aad)), "length \(length)")
            #expect(try portable.open(sealed, nonce: nonce, authenticating: aad) == plaintext)
            #expect(try accelerated.open(sealed, nonce: nonce, authenticating: aad) == plaintext)
        }
    }

    @Test("GALLERY_CHACHA20_PORTABLE set to anything but empty or 0 makes the portable kernel the default")
    func environmentChoosesTheKernel() throws {
        let variable = ChaCha20.portableEnvironmentVariable
        #expect(variable == "GALLERY_CHACHA20_PORTABLE")
        let wideOrPortable = Self.accelerated ?? .portable
        #expect(ChaCha20.defaultKernel(environment: [:]) == wideOrPortable)
        #expect(ChaCha20.defaultKernel(environment: [variable: ""]) == wideOrPortable)
        #expect(ChaCha20.defaultKernel(environment: [variable: "0"]) == wideOrPortable)
        #expect(ChaCha20.defaultKernel(environment: [variable: "1"]) == .portable)
        #expect(ChaCha20.defaultKernel(environment: [variable: "yes"]) == .portable)
        // This process's own choice follows its environment, and the initializers use it.
        #expect(ChaCha20.defaultKernel == ChaCha20.defaultKernel(environment: ProcessInfo.processInfo.environment))
        #expect(try ChaCha20(key: [UInt8](repeating: 1, count: 32), nonce: [UInt8](repeating: 2, count: 12)).kernel == ChaCha20.defaultKernel)
        #expect(try ChaCha20Poly1305(key: [UInt8](repeating: 1, count: 32)).kernel == ChaCha20.defaultKernel)
    }

    @Test("A cipher can be made for the portable kernel and this CPU's own kernels only; the best is the default")
    func onlyAvailableKernels() throws {
        #expect(ChaCha20.availableKernels.first == .portable)
        #expect(ChaCha20.availableKernels.last == (Self.accelerated ?? .portable))
        if Self.accelerated == .x86AVX512VL { #expect(Self.wideKernels == [.x86AVX2, .x86AVX512VL]) }
        let cipher = try ChaCha20(key: [UInt8](repeating: 1, count: 32), nonce: [UInt8](repeating: 2, count: 12))
        #expect(cipher.using(.portable)?.kernel == .portable)
        for kernel in ChaCha20.Kernel.allCases where kernel != .portable {
            #expect((cipher.using(kernel) != nil) == Self.wideKernels.contains(kernel), "\(kernel)")
            if !Self.wideKernels.contains(kernel) {
                #expect(throws: CryptoError.unavailableKernel(kernel.rawValue)) {
                    try ChaCha20Poly1305(key: [UInt8](repeating: 1, count: 32), kernel: kernel)
                }
            }
        }
    }
}

import Foundation
internal import CChaChaPolyKernels

extension ChaCha20 {
    /// An implementation of ChaCha20's keystream XOR and of Poly1305's block loop (the two loops of
    /// ChaCha20-Poly1305).
    ///
    /// The wide kernels live in the package's C target `CChaChaPolyKernels` (Swift has no 256-bit
    /// vectors on x86-64); whether this CPU and OS can run them is asked once, at run time, with
    /// CPUID and XGETBV, so one binary runs on every CPU of its architecture.
    package enum Kernel: String, Sendable, CaseIterable {
        /// Portable Swift: ChaCha20 four blocks at a time in `SIMD4<UInt32>`, Poly1305 one block at a
        /// time; every CPU.
        case portable = "portable"
        /// AVX2's 256-bit registers (x86-64): ChaCha20 eight blocks at a time, Poly1305 four.
        case x86AVX2 = "x86-avx2"
        /// The same with AVX-512VL's rotate instruction in ChaCha20's rounds (x86-64 with AVX-512F
        /// and AVX-512VL); Poly1305 as `x86AVX2`.
        case x86AVX512VL = "x86-avx512vl"
    }

    /// The environment variable that, set to anything but empty or `0`, makes `defaultKernel`
    /// `.portable` for the whole process (to compare, or to rule the wide kernel out).
    package static let portableEnvironmentVariable = "GALLERY_CHACHA20_PORTABLE"

    /// The best wide kernel this CPU and OS can run, or nil.
    package static let acceleratedKernel: Kernel? = {
        switch gallery_chacha20_acceleration_available() {
        case GALLERY_CHACHA20_ACCELERATION_X86_AVX512VL: .x86AVX512VL
        case GALLERY_CHACHA20_ACCELERATION_X86_AVX2: .x86AVX2
        default: nil
        }
    }()

    /// Every kernel this CPU and OS can run: the portable one, and the wide ones up to `acceleratedKernel`.
    package static let availableKernels: [Kernel] = {
        switch acceleratedKernel {
        case .x86AVX512VL: [.portable, .x86AVX2, .x86AVX512VL]
        case .x86AVX2: [.portable, .x86AVX2]
        case .portable, nil: [.portable]
        }
    }()

    /// The kernel `ChaCha20(key:nonce:)`, `Poly1305(key:)` and `ChaCha20Poly1305(key:)` use: `acceleratedKernel` if
    /// there is one, unless `GALLERY_CHACHA20_PORTABLE` asks for the portable kernel (read once, at
    /// first use).
    package static let defaultKernel: Kernel = defaultKernel(environment: ProcessInfo.processInfo.environment)

    /// The kernel to use by default in a process with `environment`.
    ///
    /// - Complexity: O(1).
    static func defaultKernel(environment: [String: String]) -> Kernel {
        if let value = environment[portableEnvironmentVariable], !value.isEmpty, value != "0" {
            return .portable
        }
        return acceleratedKernel ?? .portable
    }

    /// Whether this CPU can run `kernel`.
    static func isAvailable(_ kernel: Kernel) -> Bool {
        availableKernels.contains(kernel)
    }

    /// The C target's name for `kernel`.
    var acceleration: gallery_chacha20_acceleration {
        switch kernel {
        case .portable: GALLERY_CHACHA20_ACCELERATION_NONE
        case .x86AVX2: GALLERY_CHACHA20_ACCELERATION_X86_AVX2
        case .x86AVX512VL: GALLERY_CHACHA20_ACCELERATION_X86_AVX512VL
        }
    }

    /// `length` bytes at `input` XOR the keystream from block `counter`, into `output`, with the
    /// wide kernel `kernel` (which this CPU has: `init` and `using` admit no other).
    ///
    /// - Complexity: O(*n*).
    func xorAccelerated(_ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, length: Int, counter: UInt32) {
        withUnsafeBytes(of: key) { keyWords in
            withUnsafeBytes(of: nonce) { nonceWords in
                gallery_chacha20_xor_accelerated(acceleration, keyWords.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                                 nonceWords.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                                 counter, input, output, length)
            }
        }
    }
}

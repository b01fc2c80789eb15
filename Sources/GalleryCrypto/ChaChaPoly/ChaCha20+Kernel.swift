import Foundation
internal import CChaChaPolyKernels

extension ChaCha20 {
    /// An implementation of ChaCha20's keystream XOR and of Poly1305's block loop (the two loops of
    /// ChaCha20-Poly1305).
    ///
    /// The wide kernels live in the package's C target `CChaChaPolyKernels` (Swift has no 256-bit
    /// vectors on x86-64); whether this CPU and OS can run them is asked once, at run time, with
    /// CPUID and XGETBV, so one binary runs on every CPU of its architecture.
    public enum Kernel: String, Sendable, CaseIterable {
        /// Portable Swift: ChaCha20 four blocks at a time in `SIMD4<UInt32>`, Poly1305 one block at a
        /// time; every CPU.
        case portable = "portable"
        /// AVX2's 256-bit registers (x86-64): ChaCha20 eight blocks at a time, Poly1305 four.
        case x86AVX2 = "x86-avx2"
    }

    /// The environment variable that, set to anything but empty or `0`, makes `defaultKernel`
    /// `.portable` for the whole process (to compare, or to rule the wide kernel out).
    public static let portableEnvironmentVariable = "GALLERY_CHACHA20_PORTABLE"

    /// The wide kernel this CPU and OS can run, or nil.
    public static let acceleratedKernel: Kernel? = {
        switch gallery_chacha20_acceleration_available() {
        case GALLERY_CHACHA20_ACCELERATION_X86_AVX2: .x86AVX2
        default: nil
        }
    }()

    /// The kernel `ChaCha20(key:nonce:)`, `Poly1305(key:)` and `ChaCha20Poly1305(key:)` use: `acceleratedKernel` if
    /// there is one, unless `GALLERY_CHACHA20_PORTABLE` asks for the portable kernel (read once, at
    /// first use).
    public static let defaultKernel: Kernel = defaultKernel(environment: ProcessInfo.processInfo.environment)

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
        kernel == .portable || kernel == acceleratedKernel
    }

    /// `length` bytes at `input` XOR the keystream from block `counter`, into `output`, with the
    /// wide kernel (the caller knows this CPU has it).
    ///
    /// - Complexity: O(*n*).
    func xorAccelerated(_ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, length: Int, counter: UInt32) {
        withUnsafeBytes(of: key) { keyWords in
            withUnsafeBytes(of: nonce) { nonceWords in
                gallery_chacha20_xor_accelerated(keyWords.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                                 nonceWords.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                                 counter, input, output, length)
            }
        }
    }
}

import Foundation
internal import CSHA256Kernels

extension SHA256 {
    /// An implementation of the SHA-256 compression function.
    ///
    /// The hardware kernels live in the package's C target `CSHA256Kernels` (Swift cannot emit the
    /// instructions); which one this CPU has is asked once, at run time, with CPUID or the
    /// auxiliary vector, so one binary runs on every CPU of its architecture.
    package enum Kernel: String, Sendable, CaseIterable {
        /// Portable Swift: every CPU.
        case portable = "portable"
        /// The x86-64 SHA extensions (`sha_ni`, with SSE4.1).
        case x86SHAExtensions = "x86-sha-ni"
        /// The ARMv8 Cryptography Extension's SHA-2 instructions.
        case armSHA2 = "armv8-sha2"
    }

    /// The environment variable that, set to anything but empty or `0`, makes `defaultKernel`
    /// `.portable` for the whole process (to compare, or to rule the hardware kernel out).
    package static let portableEnvironmentVariable = "GALLERY_SHA256_PORTABLE"

    /// The hardware kernel this CPU can run, or nil if it has no SHA instructions.
    package static let acceleratedKernel: Kernel? = {
        switch gallery_sha256_acceleration_available() {
        case GALLERY_SHA256_ACCELERATION_X86_SHA: .x86SHAExtensions
        case GALLERY_SHA256_ACCELERATION_ARM_SHA2: .armSHA2
        default: nil
        }
    }()

    /// The kernel `SHA256()` uses: `acceleratedKernel` if there is one, unless
    /// `GALLERY_SHA256_PORTABLE` asks for the portable kernel (read once, at first use).
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
}

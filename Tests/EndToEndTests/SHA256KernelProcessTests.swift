import Foundation
import GalleryCrypto
import GalleryTestSupport
import Testing

/// `GALLERY_SHA256_PORTABLE` in a real process: `gallery-bench hash --kernel` prints the kernel
/// that `SHA256()` uses there, with and without the variable in its environment.
@Suite("SHA-256 kernel choice across processes")
struct SHA256KernelProcessTests {
    /// `gallery-bench`, built next to `gallery`.
    static var bench: URL {
        GalleryProcess.executable.deletingLastPathComponent().appendingPathComponent("gallery-bench")
    }

    /// The line `gallery-bench hash --kernel` prints when run through `env` with `environment`
    /// (`env` arguments: `NAME=VALUE` sets, `-u NAME` removes).
    static func kernelLine(environment: [String]) throws -> String {
        let result = try GalleryProcess.run(environment + [bench.path, "hash", "--kernel"],
                                            executable: URL(fileURLWithPath: "/usr/bin/env"), timeout: 30)
        #expect(result.status == 0, "gallery-bench hash --kernel: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("GALLERY_SHA256_PORTABLE=1 makes a fresh process hash with the portable kernel; without it, the CPU's own")
    func environmentVariableForcesPortable() throws {
        let accelerated = SHA256.acceleratedKernel.map { "\"\($0.rawValue)\"" } ?? "null"
        let forced = try Self.kernelLine(environment: ["GALLERY_SHA256_PORTABLE=1"])
        #expect(forced == "{\"kernel\": \"portable\", \"accelerated\": \(accelerated)}")
        let unset = try Self.kernelLine(environment: ["-u", "GALLERY_SHA256_PORTABLE"])
        let expected = (SHA256.acceleratedKernel ?? .portable).rawValue
        #expect(unset == "{\"kernel\": \"\(expected)\", \"accelerated\": \(accelerated)}")
        let zero = try Self.kernelLine(environment: ["GALLERY_SHA256_PORTABLE=0"])
        #expect(zero == unset)
    }
}

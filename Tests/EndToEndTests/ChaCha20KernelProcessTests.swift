import Foundation
import GalleryCrypto
import GalleryTestSupport
import Testing

/// `GALLERY_CHACHA20_PORTABLE` in a real process: `gallery-bench crypto --kernel` prints the
/// ChaCha20 kernel that `ChaCha20Poly1305(key:)` uses there, with and without the variable.
@Suite("ChaCha20 kernel choice across processes")
struct ChaCha20KernelProcessTests {
    /// `gallery-bench`, built next to `gallery`.
    static var bench: URL {
        GalleryProcess.executable.deletingLastPathComponent().appendingPathComponent("gallery-bench")
    }

    /// The line `gallery-bench crypto --kernel` prints when run through `env` with `environment`
    /// (`env` arguments: `NAME=VALUE` sets, `-u NAME` removes).
    static func kernelLine(environment: [String]) throws -> String {
        let result = try GalleryProcess.run(environment + [bench.path, "crypto", "--kernel"],
                                            executable: URL(fileURLWithPath: "/usr/bin/env"), timeout: 30)
        #expect(result.status == 0, "gallery-bench crypto --kernel: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("GALLERY_CHACHA20_PORTABLE=1 makes a fresh process encrypt with the portable kernel; without it, the CPU's own")
    func environmentVariableForcesPortable() throws {
        let accelerated = ChaCha20.acceleratedKernel.map { "\"\($0.rawValue)\"" } ?? "null"
        let forced = try Self.kernelLine(environment: ["GALLERY_CHACHA20_PORTABLE=1"])
        #expect(forced == "{\"kernel\": \"portable\", \"accelerated\": \(accelerated)}")
        let unset = try Self.kernelLine(environment: ["-u", "GALLERY_CHACHA20_PORTABLE"])
        let expected = (ChaCha20.acceleratedKernel ?? .portable).rawValue
        #expect(unset == "{\"kernel\": \"\(expected)\", \"accelerated\": \(accelerated)}")
        let zero = try Self.kernelLine(environment: ["GALLERY_CHACHA20_PORTABLE=0"])
        #expect(zero == unset)
    }
}

import Foundation
import GalleryTestSupport
import Testing

/// The chaos harness (`gallery-bench chaos`) for a small fixed budget: real `gallery serve`
/// processes under a seeded schedule of commands, kill -9, disconnects and SIGSTOP, then healed and
/// checked. Longer runs are in BENCHMARKS.md.
@Suite("chaos across real processes", .serialized)
struct ChaosTests {
    /// `gallery-bench`, built next to `gallery`.
    private var bench: URL {
        GalleryProcess.executable.deletingLastPathComponent().appendingPathComponent("gallery-bench")
    }

    @Test("gallery-bench chaos: 3 nodes for 30 s with faults, zero violations", arguments: [3] as [UInt64])
    func chaos(seed: UInt64) throws {
        let arguments = ["chaos", "--seed", "\(seed)", "--seconds", "30", "--nodes", "3", "--workers", "2",
                         "--largest-blob", "1048576", "--drag-timeout", "10"]
        // 30 s of schedule, at most 10 + 40 s for the last drags, at most 10 + 60 s of healing.
        let result = try GalleryProcess.run(arguments, executable: bench, timeout: 240)
        #expect(result.status == 0, "gallery-bench \(arguments.joined(separator: " ")):\n\(result.stdout)\n\(result.stderr)")
        let summary = try #require(
            result.stdout.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] },
            "no summary line: \(result.stdout)")
        print("chaos: \(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))")
        #expect(summary["violations"] as? Int == 0)
        // The run did what it is for: commands acknowledged, drags, and every kind of fault.
        #expect((summary["ops"] as? Int ?? 0) > 20, "\(summary)")
        #expect((summary["drags"] as? Int ?? 0) > 0, "\(summary)")
        for fault in ["kills", "disconnects", "pauses"] {
            #expect((summary[fault] as? Int ?? 0) > 0, "no \(fault): \(summary)")
        }
    }
}

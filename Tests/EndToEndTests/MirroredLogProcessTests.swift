import Foundation
import GallerySimulation
import Testing

/// The op log's mirror across real processes: `gallery serve` killed with -9, one byte of `oplog`
/// or `oplog.mirror` flipped, restarted with no peer online; `gallery list` shows every
/// acknowledged add, and `gallery status` says what was repaired.
@Suite("Mirrored op log across processes", .serialized)
struct MirroredLogProcessTests {
    @Test("kill -9, flip one random byte of oplog or its mirror (seeded), restart alone: gallery list shows all 20 adds, status says what was repaired")
    func flippedByteAfterKillLosesNothing() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("a")
        let ids = try (0..<20).map { index in
            let result = try space.gallery("a", "add", "https://example.org/\(index).jpg", "--title", "t\(index)")
            try #require(result.status == 0, "add \(index): \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try space.ids(on: "a", "a") == ids)
        space.kill("a")

        var generator = SeededGenerator(seed: 26)
        for trial in 0..<4 {
            let file = space.directory("a").appendingPathComponent(trial % 2 == 0 ? "oplog" : "oplog.mirror")
            var bytes = Array(try Data(contentsOf: file))
            let offset = trial == 0 ? 2 : Int.random(in: 0..<bytes.count, using: &generator)
            bytes[offset] ^= UInt8.random(in: 1...255, using: &generator)
            try Data(bytes).write(to: file)

            try space.start("a")
            let context: Comment = "\(file.lastPathComponent), offset \(offset)"
            #expect(try space.ids(on: "a", "a") == ids, context)
            let status = try space.gallery("a", "status").stdout
            #expect(status.contains("repaired at start: \(trial % 2 == 0 ? "oplog:" : "oplog.mirror:")"), "\(context): \(status)")
            #expect(!status.contains("missing ops"), "\(context): \(status)")
            let stderr = space.standardError(of: "a")
            #expect(stderr.contains("restored from") || stderr.contains("rewritten from"), "\(context): \(stderr)")
            #expect(!stderr.contains("new incarnation"), "nothing was lost: \(context)")
            space.kill("a")
        }
        let log = try Data(contentsOf: space.directory("a").appendingPathComponent("oplog"))
        #expect(try Data(contentsOf: space.directory("a").appendingPathComponent("oplog.mirror")) == log, "both copies whole again")
    }
}

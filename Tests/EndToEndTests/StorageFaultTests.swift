import Foundation
import GalleryTestSupport
import Testing

/// A storage fault injected for real into a running `gallery serve`: its file size limit lowered
/// (`prlimit(2)` on its PID) so that every append to its op log fails with EFBIG, then lifted.
@Suite("Storage faults", .serialized)
struct StorageFaultTests {
    /// util-linux's `prlimit`, which changes the limits of a running process.
    static let prlimit = "/usr/bin/prlimit"

    /// Sets the soft file size limit of a process (the hard one stays): `prlimit --fsize=N:`.
    private func setFileSizeLimit(of pid: pid_t, to limit: String) throws {
        let result = try GalleryProcess.run(
            ["--pid", "\(pid)", "--fsize=\(limit):"], executable: URL(fileURLWithPath: Self.prlimit), timeout: 10)
        try #require(result.status == 0, "prlimit: \(result.stderr)")
    }

    @Test(
        "A full disk: adds fail with the reason, reads and status still answer, nothing unstored reaches the peer; lifted, writes resume and nothing is lost",
        .enabled(if: FileManager.default.isExecutableFile(atPath: StorageFaultTests.prlimit)))
    func writesResumeAfterAStorageFault() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("a")
        try space.start("p", peers: ["a"])
        #expect(try space.waitUntil { try space.items(on: "a", "p") != nil })
        for index in 0..<3 {
            #expect(try space.gallery("a", "add", "https://example.org/\(index).jpg").status == 0)
        }
        #expect(try space.waitUntil { try space.ids(on: "p", "a").count == 3 })
        let before = try space.ids(on: "a", "a")

        let pid = try space.pid(of: "a")
        let size = try FileManager.default.attributesOfItem(
            atPath: space.directory("a").appendingPathComponent("oplog").path)[.size] as? UInt64 ?? 0
        try setFileSizeLimit(of: pid, to: "\(size)")
        let failed = try space.gallery("a", "add", "https://example.org/unstored.jpg")
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("cannot write to \(space.directory("a").path)") && failed.stderr.contains("File too large"),
                "\(failed.stderr)")
        let refused = try space.gallery("a", "add", "https://example.org/refused.jpg")
        #expect(refused.status == 1 && refused.stderr.contains("changes are refused"), "\(refused.stderr)")

        // Reads answer; status says why; the op that is not durable stays away from the peer.
        #expect(try space.ids(on: "a", "a").count == 4)
        let health = try space.health(of: "a")
        #expect(health.storage?.contains("File too large") == true && health.unstoredOps == 1, "\(health)")
        #expect(try space.gallery("a", "status").stdout.contains("storage: cannot write to"))
        usleep(300_000)
        #expect(try space.ids(on: "p", "a") == before, "no op that is not durable is sent")

        try setFileSizeLimit(of: pid, to: "unlimited")
        #expect(try space.waitUntil(timeout: 10) { try space.health(of: "a").storage == nil })
        #expect(try space.health(of: "a").isClean)
        let after = try space.gallery("a", "add", "https://example.org/after.jpg")
        #expect(after.status == 0, "\(after.stderr)")
        let all = try space.ids(on: "a", "a")
        #expect(all.count == 5)
        #expect(try space.waitUntil { try space.ids(on: "p", "a") == all }, "once durable, the ops reach the peer")

        space.kill("a")
        try space.start("a")
        #expect(try space.ids(on: "a", "a") == all, "nothing acknowledged (nor the op stored late) is lost")
    }
}

import Foundation
import GallerySimulation
import GalleryTestSupport
import Synchronization
import Testing

/// kill -9 of a node at random moments while commands run; every command that returned success
/// is still there after the restart.
@Suite("kill -9", .serialized)
struct KillNineTests {
    @Test("Acknowledged adds survive kill -9 at seeded random moments, 8 rounds", arguments: [21] as [UInt64])
    func acknowledgedAddsSurvive(seed: UInt64) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SeededGenerator(seed: seed)
        let acknowledged = Mutex<[String]>([])
        var replica: String?
        for round in 0..<8 {
            let node = try ServeProcess([directory.path, "--name", "k"])
            #expect(node.endpoint != nil, "round \(round): \(node.standardError)")
            if let replica {
                #expect(try String(contentsOf: directory.appendingPathComponent("replica"), encoding: .utf8) == replica)
            } else {
                replica = try String(contentsOf: directory.appendingPathComponent("replica"), encoding: .utf8)
            }
            // Everything acknowledged so far is listed.
            let listed = try listIDs(directory)
            let missing = acknowledged.withLock { $0 }.filter { !listed.contains($0) }
            #expect(missing.isEmpty, "round \(round): acknowledged but lost: \(missing)")
            // Adds run on a thread while the node is killed at a random moment.
            let stop = Atomic<Bool>(false)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                var index = 0
                while !stop.load(ordering: .relaxed) {
                    if let result = try? GalleryProcess.run(
                        ["-C", directory.path, "add", "https://example.org/\(round)-\(index).png"], timeout: 10),
                       result.status == 0 {
                        let id = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                        acknowledged.withLock { $0.append(id) }
                    }
                    index += 1
                }
                done.signal()
            }
            usleep(UInt32.random(in: 50_000...400_000, using: &random))
            node.stop(signal: SIGKILL)
            stop.store(true, ordering: .relaxed)
            #expect(done.wait(timeout: .now() + 30) == .success)
        }
        let final = try ServeProcess([directory.path, "--name", "k"])
        defer { final.stop() }
        let listed = try listIDs(directory)
        let all = acknowledged.withLock { $0 }
        print("kill -9: 8 rounds, \(all.count) acknowledged adds, \(listed.count) items after the last restart")
        #expect(!all.isEmpty)
        #expect(all.filter { !listed.contains($0) }.isEmpty, "acknowledged but lost after the last kill")
        #expect(Set(listed).count == listed.count, "an item listed twice")
    }

    private func listIDs(_ directory: URL) throws -> [String] {
        let result = try GalleryProcess.run(["-C", directory.path, "list", "k", "--json"])
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            Issue.record("list failed: \(result.stderr)")
            return []
        }
        return (object["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }
}

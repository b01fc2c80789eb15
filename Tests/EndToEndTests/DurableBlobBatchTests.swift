import Foundation
import GalleryCrypto
import GalleryTestSupport
import Testing

/// Received blobs are made durable in batches (one `syncfs` for many, `TransferManager+DurableBatch`):
/// the promise stays that an acknowledged commit never names bytes a crash loses. Real `gallery
/// serve` processes, kill -9 of the receiver.
@Suite("received blobs in durable batches", .serialized)
struct DurableBlobBatchTests {
    /// The blobs of a node's gallery that are ready: each must be in its store, whole, hashing to
    /// its name. Returns the problems found.
    private func missingBytes(_ space: NodeSpace, on name: String, _ gallery: String) throws -> [String] {
        let items = try #require(try space.items(on: name, gallery))
        var problems: [String] = []
        for item in items where item["state"] as? String == "ready" {
            guard let hash = item["hash"] as? String else {
                problems.append("\(item["id"] ?? "?"): no hash")
                continue
            }
            let path = space.directory(name).appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path
            guard let bytes = FileManager.default.contents(atPath: path) else {
                problems.append("\(hash.prefix(12)): committed, not in the store")
                continue
            }
            if SHA256.hex(SHA256.hash(bytes)) != hash { problems.append("\(hash.prefix(12)): other bytes under its name") }
        }
        return problems
    }

    @Test("kill -9 of the receiver right after drag --wait, and in the middle of a drag: no committed item without its bytes")
    func acknowledgedBlobsSurviveKillNine() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("bob")
        try space.start("alice", peers: ["bob"])
        let paths = try (0..<80).map { try space.image("p\($0).png", bytes: ($0 < 40 ? 20_000 : 200_000) + $0 * 97) }
        let added = try space.gallery("alice", ["add"] + paths)
        #expect(added.status == 0, "\(added.stderr)")
        let ids = added.stdout.split(separator: "\n").map(String.init)
        #expect(ids.count == 80)
        #expect(try space.waitUntil(timeout: 60) { try space.column("id", on: "bob", "alice") == ids })

        // Acknowledged: `--wait` answers once every transfer committed; the receiver dies at once.
        let first = Array(ids.prefix(40))
        let drag = try space.gallery("bob", ["drag"] + first + ["--to", "bob", "--wait"])
        #expect(drag.status == 0, "\(drag.stdout) \(drag.stderr)")
        #expect(drag.stdout.split(separator: "\n").filter { $0.hasSuffix(" committed") }.count == 40, "\(drag.stdout)")
        space.kill("bob")
        try space.start("bob")
        let states = try space.column("state", on: "bob", "bob")
        #expect(states == Array(repeating: "ready", count: 40), "after kill -9: \(states)")
        #expect(try missingBytes(space, on: "bob", "bob").isEmpty)

        // In the middle of a drag: killed once a few transfers committed.
        let second = Array(ids.suffix(40))
        let started = try space.gallery("bob", ["drag"] + second + ["--to", "bob", "--at", "0"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(try space.waitUntil(timeout: 60) { try space.column("state", on: "bob", "bob").filter { $0 == "ready" }.count >= 45 })
        space.kill("bob")
        try space.start("bob")
        let problems = try missingBytes(space, on: "bob", "bob")
        #expect(problems.isEmpty, "committed without bytes after kill -9 mid-drag: \(problems)")
        // The transfers left resume and commit.
        #expect(try space.waitUntil(timeout: 120) {
            try space.column("state", on: "bob", "bob") == Array(repeating: "ready", count: 80)
        }, "\((try? space.column("state", on: "bob", "bob")) ?? [])")
        #expect(try missingBytes(space, on: "bob", "bob").isEmpty)
    }
}

import Foundation
import GalleryCrypto
import GalleryTestSupport
import Testing

/// `serve --keep all|thumbnails` and `--cache-budget` across real processes: under `all` a node
/// holds every original with no request; under `thumbnails` (the default) it holds only what it
/// read, as a cache, evicted least recently used, never the last reachable copy; `status --json`
/// says what is held, kept, cached, and what no reachable node holds.
@Suite("keep policies and the cache of originals", .serialized)
struct KeepPolicyTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-keep-\(UUID().uuidString)")

    private func blobPath(_ hash: String, on node: WebNode) -> String {
        node.directory.appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path
    }

    /// Adds a file of `size` bytes (a PNG header, then noise) on `node`; returns item and hash once `other` lists it.
    private func add(_ name: String, size: Int, on node: WebNode, seenBy other: WebNode) throws -> (item: String, hash: String) {
        let bytes = WebAPITests.png(width: 640, height: 480, size: size)
        let url = base.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        let added = try node.gallery("add", url.path)
        #expect(added.status == 0, "\(added.stderr)")
        let item = try #require(added.stdout.split(separator: "\n").first.map(String.init))
        #expect(waitUntil { (try? other.ids(node.name))?.contains(item) == true }, "\(other.name) never listed \(item)")
        return (item, SHA256.hex(SHA256.hash(bytes)))
    }

    private func storage(of node: WebNode) throws -> [String: Any] {
        let status = try node.gallery("status", "--json")
        #expect(status.status == 0, "\(status.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        return try #require(object?["storage"] as? [String: Any], "no storage in \(status.stdout)")
    }

    @Test("--keep all: alice holds every original bob adds, with no request; --keep thumbnails (bob's default) does not hold alice's")
    func keepAll() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let alice = try WebNode("alice", base: base, arguments: ["--keep", "all"])
        defer { alice.stop() }
        let listening = try #require(alice.process?.endpoint)
        let bob = try WebNode("bob", base: base, arguments: [
            "--peer", listening.description, "--secret-file", alice.directory.appendingPathComponent("secret").path,
        ])
        defer { bob.stop() }
        let pictures = try (0..<3).map { try add("b\($0).png", size: 200_000 + $0, on: bob, seenBy: alice) }
        for picture in pictures {
            #expect(waitUntil { FileManager.default.fileExists(atPath: blobPath(picture.hash, on: alice)) }, "alice never fetched \(picture.item)")
        }
        let mine = try add("a.png", size: 100_000, on: alice, seenBy: bob)
        let aliceStorage = try storage(of: alice)
        #expect(aliceStorage["keep"] as? String == "all")
        #expect(aliceStorage["heldBytes"] as? Int == 200_000 * 3 + 3 + 100_000)
        #expect(aliceStorage["keptBytes"] as? Int == 200_000 * 3 + 3 + 100_000)
        #expect(aliceStorage["cachedBytes"] as? Int == 0)
        // bob keeps thumbnails only: alice's original never comes to him unasked.
        Thread.sleep(forTimeInterval: 1)
        #expect(!FileManager.default.fileExists(atPath: blobPath(mine.hash, on: bob)))
        let bobStorage = try storage(of: bob)
        #expect(bobStorage["keep"] as? String == "thumbnails")
        #expect(bobStorage["heldBytes"] as? Int == 200_000 * 3 + 3)
    }

    @Test("--cache-budget: originals read on alice are cached and evicted LRU while bob holds them; the last copy is kept while bob is offline, then evicted when he is back")
    func evictionKeepsLastCopy() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        var alice = try WebNode("alice", base: base, arguments: ["--cache-budget", "400K"])
        let listening = try #require(alice.process?.endpoint)
        var bob = try WebNode("bob", base: base, arguments: [
            "--peer", listening.description, "--secret-file", alice.directory.appendingPathComponent("secret").path,
        ])
        defer { bob.stop(); alice.stop() }
        let first = try add("1.png", size: 300_000, on: bob, seenBy: alice)
        let second = try add("2.png", size: 300_000, on: bob, seenBy: alice)

        #expect(try alice.get("/blobs/\(first.hash)").status == 200)
        var cached = try storage(of: alice)
        #expect(cached["cachedBytes"] as? Int == 300_000, "\(cached)")
        #expect(cached["cacheBudget"] as? Int == 400 << 10)
        #expect(FileManager.default.fileExists(atPath: blobPath(first.hash, on: alice)))
        // The second read passes the budget: the least recently read goes, bob holding it.
        #expect(try alice.get("/blobs/\(second.hash)").status == 200)
        #expect(waitUntil { !FileManager.default.fileExists(atPath: blobPath(first.hash, on: alice)) }, "the first original was never evicted")
        #expect(FileManager.default.fileExists(atPath: blobPath(second.hash, on: alice)))
        cached = try storage(of: alice)
        #expect(cached["cachedBytes"] as? Int == 300_000, "\(cached)")
        #expect(cached["evicted"] as? Int == 1, "\(cached)")
        #expect(FileManager.default.fileExists(atPath: blobPath(first.hash, on: bob)), "bob's own copy is his")

        // bob goes away; alice restarts with a budget of 1 byte: the second original is over it,
        // but no reachable node holds it, so it stays.
        bob.stop()
        alice.stop()
        alice = try WebNode("alice", base: base, arguments: ["--cache-budget", "1"])
        // The pass at start decided: over budget, kept.
        #expect(waitUntil { ((try? storage(of: alice))?["keptOverBudget"] as? Int) == 1 }, "no eviction pass at start")
        #expect(FileManager.default.fileExists(atPath: blobPath(second.hash, on: alice)), "the last reachable copy was evicted")
        let offline = try storage(of: alice)
        #expect(offline["cachedBytes"] as? Int == 300_000, "\(offline)")
        // The first original is now on no reachable node: listed, with where it is.
        let unavailable = try #require(offline["unavailable"] as? [[String: Any]])
        #expect(offline["unavailableCount"] as? Int == 1, "\(offline)")
        #expect(unavailable.first?["item"] as? String == first.item)
        #expect((unavailable.first?["reason"] as? String)?.hasPrefix("on bob, offline") == true, "\(unavailable)")
        let text = try alice.gallery("status")
        #expect(text.stdout.contains("originals no reachable node holds (1):"), "\(text.stdout)")

        // bob is back and holds it: now it goes.
        bob = try WebNode("bob", base: base, arguments: ["--secret-file", alice.directory.appendingPathComponent("secret").path])
        #expect(waitUntil { !FileManager.default.fileExists(atPath: blobPath(second.hash, on: alice)) }, "never evicted once bob was back")
        #expect(FileManager.default.fileExists(atPath: blobPath(second.hash, on: bob)))
    }

    @Test("--keep and --cache-budget refuse bad values with one line and the usage, exit 64")
    func badArguments() throws {
        for arguments in [["--keep", "some"], ["--cache-budget", "lots"], ["--cache-budget", "-5"], ["--cache-budget", "9999999999999G"]] {
            let result = try GalleryProcess.run(["serve", base.appendingPathComponent("x").path] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.status)")
            #expect(result.stderr.contains(arguments[0]), "\(result.stderr)")
            #expect(result.stderr.contains("usage: gallery serve"), "\(result.stderr)")
        }
    }

    private func waitUntil(timeout: TimeInterval = 30, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}

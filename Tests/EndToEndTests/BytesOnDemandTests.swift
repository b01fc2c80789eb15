import Foundation
import GalleryCrypto
import Testing

/// Bytes on demand across processes: two `gallery serve --http` nodes, bob dialing alice. A node
/// asked for bytes it lacks (its page's `GET /blobs/HASH`, `export`) fetches them from the peer that
/// holds them, verified, with no drag; with no holder reachable it answers at once, saying why.
@Suite("bytes on demand: blobs and export served from a peer's bytes", .serialized)
struct BytesOnDemandTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-ondemand-\(UUID().uuidString)")

    /// alice, then bob dialing her in the same space.
    private func pair() throws -> (alice: WebNode, bob: WebNode) {
        let alice = try WebNode("alice", base: base)
        let listening = try #require(alice.process?.endpoint)
        let bob = try WebNode("bob", base: base, arguments: [
            "--peer", listening.description, "--secret-file", alice.directory.appendingPathComponent("secret").path,
        ])
        return (alice, bob)
    }

    /// Adds a PNG of `size` bytes on `node`; returns its bytes and hash once `other` lists the item.
    private func add(_ name: String, size: Int, on node: WebNode, seenBy other: WebNode) throws -> (bytes: [UInt8], hash: String) {
        let bytes = WebAPITests.png(width: 640, height: 480, size: size)
        let url = base.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        let added = try node.gallery("add", url.path)
        #expect(added.status == 0, "\(added.stderr)")
        let item = try #require(added.stdout.split(separator: "\n").first.map(String.init))
        #expect(waitUntil { (try? other.ids(node.name))?.contains(item) == true }, "\(other.name) never listed \(item)")
        let hash = SHA256.hex(SHA256.hash(bytes))
        #expect(try other.items(node.name).first { $0["id"] as? String == item }?["hash"] as? String == hash)
        return (bytes, hash)
    }

    private func blobPath(_ hash: String, on node: WebNode) -> String {
        node.directory.appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path
    }

    @Test("a file added on bob is served by alice's GET /blobs/HASH with no drag (the same bytes, hash verified), and alice exports a blob only bob holds")
    func servedFromPeer() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let (alice, bob) = try pair()
        defer { bob.stop(); alice.stop() }
        let picture = try add("b.png", size: 700_000, on: bob, seenBy: alice)
        #expect(!FileManager.default.fileExists(atPath: blobPath(picture.hash, on: alice)), "alice held the bytes before she was asked")

        let reply = try alice.get("/blobs/\(picture.hash)")
        #expect(reply.status == 200, "\(reply.text.prefix(200))")
        #expect(reply.headers["content-type"] == "image/png")
        #expect(reply.headers["etag"] == "\"\(picture.hash)\"")
        #expect(reply.body == picture.bytes)
        #expect(SHA256.hex(SHA256.hash(reply.body)) == picture.hash)
        // alice keeps the verified copy: the next request is served from her store.
        #expect(FileManager.default.contents(atPath: blobPath(picture.hash, on: alice)).map(Array.init) == picture.bytes)

        let other = try add("c.png", size: 300_000, on: bob, seenBy: alice)
        let destination = base.appendingPathComponent("exported.png")
        let exported = try alice.gallery("export", "bob:1", destination.path)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(FileManager.default.contents(atPath: destination.path).map(Array.init) == other.bytes)
    }

    @Test("with bob stopped, alice answers GET /blobs/HASH and export of bytes only bob held at once, with the reason; nothing is written")
    func holderGone() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let (alice, bob) = try pair()
        defer { alice.stop() }
        let picture = try add("b.png", size: 50_000, on: bob, seenBy: alice)
        bob.stop()

        var started = Date()
        let reply = try alice.get("/blobs/\(picture.hash)")
        #expect(Date().timeIntervalSince(started) < 3, "answered after \(Date().timeIntervalSince(started)) s")
        #expect(reply.status == 404)
        #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(reply.json["error"] as? String == "notHeld", "\(reply.text)")
        #expect((reply.json["message"] as? String)?.hasPrefix("on bob, offline: no peer is connected") == true, "\(reply.text)")

        let destination = base.appendingPathComponent("exported.png")
        started = Date()
        let exported = try alice.gallery("export", "bob:0", destination.path)
        #expect(Date().timeIntervalSince(started) < 3, "answered after \(Date().timeIntervalSince(started)) s")
        #expect(exported.status == 1)
        #expect(exported.stderr.contains("on bob, offline: no peer is connected"), "\(exported.stderr)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: blobPath(picture.hash, on: alice)))
    }

    @Test("with bob paused (SIGSTOP) while still connected, alice answers within the peer timeout, not never")
    func holderSilent() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let (alice, bob) = try pair()
        defer { bob.stop(); alice.stop() }
        let picture = try add("b.png", size: 50_000, on: bob, seenBy: alice)
        let pid = try #require(bob.process?.processID)
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        let started = Date()
        let reply = try alice.get("/blobs/\(picture.hash)")
        let waited = Date().timeIntervalSince(started)
        // The peer timeout is 5 s: by then bob is either taken as gone or taken as silent.
        #expect(waited < 9, "answered after \(waited) s")
        #expect([404, 504].contains(reply.status), "\(reply.status) \(reply.text)")
        #expect(reply.json["error"] as? String == "notHeld", "\(reply.text)")
        #expect(!FileManager.default.fileExists(atPath: blobPath(picture.hash, on: alice)))
    }

    private func waitUntil(timeout: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}

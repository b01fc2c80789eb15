import Foundation
import GalleryCrypto
import GalleryTestSupport
import Testing

/// `gallery -C DIR ...` against real `gallery serve` processes.
@Suite("gallery -C DIR commands", .serialized)
struct NodeCommandTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func gallery(_ directory: URL, _ arguments: String...) throws -> GalleryProcess.Result {
        try GalleryProcess.run(["-C", directory.path] + arguments)
    }

    private func listJSON(_ directory: URL, _ gallery: String) throws -> [[String: Any]] {
        let result = try self.gallery(directory, "list", gallery, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["gallery"] as? String == gallery)
        return object?["items"] as? [[String: Any]] ?? []
    }

    @Test("add, list, new-gallery, move, update, delete on a running node")
    func commands() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = try ServeProcess([directory.path, "--name", "alice"])
        defer { #expect(node.stop() == 0) }
        #expect(node.endpoint != nil)

        #expect(try gallery(directory, "galleries").stdout == "alice\n")
        let added = try gallery(directory, "add", "https://example.org/venice.png", "https://example.org/rome.jpg", "--aspect", "1.5")
        #expect(added.status == 0, "\(added.stderr)")
        let ids = added.stdout.split(separator: "\n").map(String.init)
        #expect(ids.count == 2)
        var items = try listJSON(directory, "alice")
        #expect(items.map { $0["id"] as? String } == ids)
        #expect(items.first?["title"] as? String == "venice.png")
        #expect(items.first?["url"] as? String == "https://example.org/venice.png")
        #expect(items.first?["aspectRatio"] as? Double == 1.5)
        #expect(items.first?["state"] as? String == "ready")
        #expect(items.first.map { $0.keys.sorted() } == ["aspectRatio", "bytes", "hash", "id", "mediaType", "progress", "state", "title", "url"])

        #expect(try gallery(directory, "new-gallery", "trip").status == 0)
        #expect(try gallery(directory, "move", "alice:1", "--at", "0", "--to", "trip").status == 0)
        #expect(try gallery(directory, "update", ids[1], "--title", "Rome!").status == 0)
        #expect(try listJSON(directory, "trip").map { $0["title"] as? String } == ["Rome!"])
        #expect(try gallery(directory, "trash", ids[0]).status == 0)
        items = try listJSON(directory, "alice")
        #expect(items.isEmpty)

        // Failures change nothing and say why.
        let unknown = try gallery(directory, "move", "99@0000000000000001", "--at", "0")
        #expect(unknown.status == 1 && unknown.stderr.hasPrefix("gallery: "))
        let outOfRange = try gallery(directory, "move", ids[1], "--at", "7")
        #expect(outOfRange.status == 1 && outOfRange.stderr.contains("out of range"))
        #expect(try listJSON(directory, "trip").map { $0["id"] as? String } == [ids[1]])
        let usage = try gallery(directory, "move", ids[1])
        #expect(usage.status == 64 && usage.stderr.contains("usage: gallery -C DIR move"))
    }

    @Test("add FILE stores the bytes, reads the header; export writes them back; a non-image is refused")
    func files() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = try ServeProcess([directory.path, "--name", "alice"])
        defer { #expect(node.stop() == 0) }
        #expect(node.endpoint != nil)
        // A PNG header (640 x 480) followed by pseudo-random bytes: the node reads only the header.
        var generator = SystemRandomNumberGenerator()
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
            + [0, 0, 2, 0x80, 0, 0, 1, 0xE0, 8, 2, 0, 0, 0, 0, 0, 0, 0]
        png += (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let file = directory.appendingPathComponent("venice.png")
        try Data(png).write(to: file)
        let added = try gallery(directory, "add", file.path)
        #expect(added.status == 0, "\(added.stderr)")
        let item = try #require(try listJSON(directory, "alice").first)
        #expect(item["title"] as? String == "venice.png")
        #expect(item["mediaType"] as? String == "image/png")
        #expect(item["bytes"] as? Int == png.count)
        #expect(item["hash"] as? String == SHA256.hex(SHA256.hash(png)))
        #expect(abs((item["aspectRatio"] as? Double ?? 0) - 640.0 / 480.0) < 1e-9)

        let copy = directory.appendingPathComponent("copy.png")
        #expect(try gallery(directory, "export", "alice:0", copy.path).status == 0)
        #expect(Array(try Data(contentsOf: copy)) == png)
        // Stored once: a second add of the same bytes adds an item, not a second blob.
        #expect(try gallery(directory, "add", file.path).status == 0)
        let blobFiles = try FileManager.default.subpathsOfDirectory(atPath: directory.appendingPathComponent("blobs").path)
            .filter { $0.hasSuffix(SHA256.hex(SHA256.hash(png))) }
        #expect(blobFiles.count == 1)

        let text = directory.appendingPathComponent("notes.txt")
        try Data("not an image".utf8).write(to: text)
        let refused = try gallery(directory, "add", text.path)
        #expect(refused.status == 1 && refused.stderr.contains("not a PNG, JPEG or GIF"))
        #expect(try listJSON(directory, "alice").count == 2)
    }

    @Test("Two nodes: what one adds, the other lists")
    func twoNodes() throws {
        let pair = try NodePair(peered: true)
        defer { pair.stop() }
        let (alice, bob) = (pair.alice, pair.bob)
        let added = try gallery(alice, "add", "https://example.org/venice.png")
        #expect(added.status == 0)
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Bob gets it within a bounded time (sync is asynchronous; poll the real CLI).
        let deadline = Date().addingTimeInterval(20)
        var seen: [String?] = []
        while Date() < deadline {
            let result = try gallery(bob, "list", "alice", "--json")
            if result.status == 0, let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] {
                seen = (object["items"] as? [[String: Any]] ?? []).map { $0["id"] as? String }
                if seen == [id] { break }
            }
            usleep(50_000)
        }
        #expect(seen == [id])
        #expect(try gallery(bob, "peers").stdout.contains("alice"))
    }

    @Test("disconnect PEER drops the connection; the dialing side reconnects and syncs again")
    func disconnect() throws {
        let pair = try NodePair(peered: true)
        defer { pair.stop() }
        let (alice, bob) = (pair.alice, pair.bob)
        let live = { (directory: URL) throws -> Bool in
            try self.gallery(directory, "peers").stdout.split(separator: "\n").contains { $0.contains("\tlive") }
        }
        #expect(try waitUntil { try live(bob) })
        let dropped = try gallery(alice, "disconnect", "bob")
        #expect(dropped.status == 0, "\(dropped.stderr)")
        let unknown = try gallery(alice, "disconnect", "carol")
        #expect(unknown.status == 1 && unknown.stderr.contains("no peer named \"carol\""), "\(unknown.stderr)")
        // Bob dials again; what alice adds then reaches him.
        let added = try gallery(alice, "add", "https://example.org/after.png")
        #expect(added.status == 0)
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try waitUntil { try self.gallery(bob, "list", "alice", "--json").stdout.contains(id) })
        #expect(pair.aliceNode.standardError.contains("alice: connection to bob closed: disconnected by request"),
                "\(pair.aliceNode.standardError)")
    }

    /// Polls `condition` every 50 ms for at most `timeout` seconds; true once it held.
    private func waitUntil(timeout: TimeInterval = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    @Test("connect, status --json, and watch --json across two nodes")
    func connectStatusWatch() throws {
        let pair = try NodePair(peered: false)
        defer { pair.stop() }
        let (alice, bob) = (pair.alice, pair.bob)
        let address = try #require(pair.aliceNode.endpoint)
        #expect(try gallery(bob, "connect", address.description).status == 0)
        // Bob syncs alice's gallery; then watches it.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, try !gallery(bob, "galleries").stdout.contains("alice") { usleep(20_000) }
        let watcher = try ServeProcess(["-C", bob.path, "watch", "alice", "--json"], serve: false)
        defer { watcher.stop(signal: SIGINT) }
        // The watch is registered when it prints its first line ("watching"); then change alice.
        #expect(watcher.waitForLines(1), "watch printed: \(watcher.standardOutput)")
        let added = try gallery(alice, "add", "https://example.org/a.png")
        #expect(added.status == 0)
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try gallery(alice, "update", id, "--title", "renamed").status == 0)
        #expect(try gallery(alice, "delete", id).status == 0)
        #expect(watcher.waitForLines(4), "watch printed: \(watcher.standardOutput)")
        let events = watcher.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(events.compactMap { $0["event"] as? String } == ["watching", "inserted", "updated", "trashed"])
        #expect(events.dropFirst().allSatisfy { $0["id"] as? String == id && $0["gallery"] as? String == "alice" })

        let status = try gallery(bob, "status", "--json")
        #expect(status.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(object?["name"] as? String == "bob")
        let peers = object?["peers"] as? [[String: Any]] ?? []
        #expect(peers.map { $0["name"] as? String } == ["alice"])
        #expect(peers.first?["state"] as? String == "live")
        let version = object?["version"] as? [String: Any] ?? [:]
        #expect(version.count == 2)
    }

    @Test("No node: exit 69, also over a stale socket of a killed node; another user: exit 77")
    func unavailableAndRefused() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try gallery(directory, "galleries").status == 69)
        let killed = try ServeProcess([directory.path])
        #expect(killed.endpoint != nil)
        killed.stop(signal: SIGKILL)
        // kill -9 leaves the socket file: nobody listens on it.
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("control.sock").path))
        let stale = try gallery(directory, "galleries")
        #expect(stale.status == 69, "\(stale.stderr)")
        // A restarted node replaces the stale socket.
        let node = try ServeProcess([directory.path])
        defer { node.stop() }
        #expect(node.endpoint != nil)
        #expect(try gallery(directory, "galleries").status == 0)
        // Another user (when the tests may switch users): refused, exit 77, nothing printed.
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        if getuid() == 0, FileManager.default.isExecutableFile(atPath: setpriv.path) {
            let other = try GalleryProcess.run(
                ["--reuid=65534", "--regid=65534", "--clear-groups", GalleryProcess.executable.path,
                 "-C", directory.path, "new-gallery", "intruder"],
                executable: setpriv)
            #expect(other.status == 77, "\(other.stderr)")
            #expect(other.stdout.isEmpty)
            #expect(try gallery(directory, "galleries").stdout == "\(directory.lastPathComponent)\n")
        }
    }
}

/// Two `gallery serve` processes, alice and bob, in temporary directories sharing alice's secret;
/// bob dials alice when `peered`.
struct NodePair {
    let alice: URL
    let bob: URL
    let aliceNode: ServeProcess
    let bobNode: ServeProcess

    init(peered: Bool) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-pair-\(UUID().uuidString)")
        alice = base.appendingPathComponent("alice")
        bob = base.appendingPathComponent("bob")
        aliceNode = try ServeProcess([alice.path, "--name", "alice"])
        let address = try #require(aliceNode.endpoint)
        bobNode = try ServeProcess([bob.path, "--name", "bob", "--secret-file", alice.appendingPathComponent("secret").path]
            + (peered ? ["--peer", address.description] : []))
        #expect(bobNode.endpoint != nil)
    }

    /// Stops both nodes (each must exit 0) and removes their directories.
    func stop() {
        #expect(bobNode.stop() == 0)
        #expect(aliceNode.stop() == 0)
        try? FileManager.default.removeItem(at: alice.deletingLastPathComponent())
    }
}

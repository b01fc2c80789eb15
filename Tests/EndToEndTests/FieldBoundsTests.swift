import Foundation
import GalleryControl
import GalleryTestSupport
import GalleryWire
import Testing

/// The field bounds across real processes: an over-long field is a usage error of the
/// command line, refused before the node is contacted, and refused again by the node for a client
/// that skips the check; a drop far larger than one op reaches the other node whole, in order.
@Suite("field bounds across processes", .serialized)
struct FieldBoundsTests {
    /// The node's op count (`status --json`).
    private func opCount(_ space: NodeSpace, _ name: String) throws -> Int {
        let status = try space.gallery(name, "status", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        return try #require(object?["ops"] as? Int, "status: \(status.stdout) \(status.stderr)")
    }

    /// Blobs in the node's store (`blobs/XX/HASH`).
    private func blobCount(_ space: NodeSpace, _ name: String) -> Int {
        let blobs = space.directory(name).appendingPathComponent("blobs").path
        let names = FileManager.default.subpaths(atPath: blobs) ?? []
        return names.filter { $0.split(separator: "/").last?.count == 64 && !$0.hasPrefix("tmp") }.count
    }

    @Test("add --title of 65,536 bytes, or a URL of 8,193: exit 64, one line and the usage, before contacting the node, which stays up and unchanged")
    func overLongFieldsAreUsageErrors() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alice")
        let image = try space.image("photo.png")
        #expect(try space.gallery("alice", "add", image).status == 0)
        let before = try space.items(on: "alice", "alice")
        let ops = try opCount(space, "alice")
        let blobs = blobCount(space, "alice")
        #expect(blobs == 1)
        let url = "https://example.org/" + String(repeating: "u", count: 8_193 - 20)
        #expect(url.utf8.count == 8_193)

        let cases: [(String, [String], String)] = [
            ("title", ["add", image, "--title", String(repeating: "x", count: 65_536)],
             "gallery: title of 65536 bytes is over the limit of 1024 bytes"),
            ("url", ["add", url], "gallery: url of 8193 bytes is outside 1 to 8192 bytes"),
            ("update title", ["update", "alice:0", "--title", String(repeating: "x", count: 1_025)],
             "gallery: title of 1025 bytes is over the limit of 1024 bytes"),
            ("aspect", ["add", image, "--aspect", "70000"], "gallery: aspectRatio 70000.0 is outside"),
            ("gallery name", ["new-gallery", String(repeating: "g", count: 256)],
             "gallery: gallery name of 256 bytes is outside 1 to 255 bytes"),
        ]
        for (label, arguments, message) in cases {
            let result = try space.gallery("alice", arguments)
            #expect(result.status == 64, "\(label): \(result.status) \(result.stderr)")
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first.map { $0.hasPrefix(message) } == true, "\(label): \(lines.first ?? "")")
            #expect(lines.dropFirst().first?.hasPrefix("usage: gallery -C DIR") == true, "\(label): \(result.stderr.prefix(300))")
            #expect(result.stdout.isEmpty)
            // The same command for a directory where no node runs: still a usage error, not 69.
            let nowhere = try GalleryProcess.run(["-C", space.base.appendingPathComponent("nowhere").path] + arguments)
            #expect(nowhere.status == 64, "\(label) without a node: \(nowhere.status) \(nowhere.stderr.prefix(200))")
        }
        // The node is up and unchanged: same items, same ops, no blob stored for the refused add.
        #expect(try opCount(space, "alice") == ops)
        #expect(try space.items(on: "alice", "alice").map { $0.map { "\($0["id"] ?? "")" } } == before.map { $0.map { "\($0["id"] ?? "")" } })
        #expect(blobCount(space, "alice") == blobs)

        // A client that skips the command line's check gets an error answer from the node.
        let refused = try ControlClient.send(
            ControlRequest(id: 1, command: .add(AddRequest(sources: [.url(url)], gallery: "alice"))), to: space.directory("alice"))
        #expect(!refused.ok && refused.error?.contains("url of 8193 bytes") == true, "\(refused)")
        let title = try ControlClient.send(
            ControlRequest(id: 2, command: .add(AddRequest(sources: [.file(image)], gallery: "alice", title: String(repeating: "x", count: 65_536)))),
            to: space.directory("alice"))
        #expect(!title.ok && title.error?.contains("title of 65536 bytes") == true, "\(title)")
        #expect(try opCount(space, "alice") == ops)

        // An image whose header gives an aspect ratio outside the bound (100,000 x 1 pixels) is
        // refused by the node (exit 1) before its bytes are stored; with --aspect it is added.
        let strip = try space.image("strip.png", width: 100_000, height: 1)
        let wide = try space.gallery("alice", "add", strip)
        #expect(wide.status == 1 && wide.stderr.contains("aspectRatio 100000.0 is outside"), "\(wide.status) \(wide.stderr)")
        #expect(blobCount(space, "alice") == blobs)
        #expect(try space.gallery("alice", "add", strip, "--aspect", "2").status == 0)
        #expect(blobCount(space, "alice") == blobs + 1)

        // At the bounds: a URL of 8,192 bytes is added, its default title cut to 1,024 bytes.
        let longest = String(url.dropLast())
        let added = try space.gallery("alice", "add", longest)
        #expect(added.status == 0, "\(added.stderr)")
        let item = try #require(try space.items(on: "alice", "alice")?.last)
        #expect(item["url"] as? String == longest)
        #expect((item["title"] as? String)?.utf8.count == 1_024)
        #expect(try space.gallery("alice", "add", image, "--title", String(repeating: "t", count: 1_024)).status == 0)
    }

    @Test("add of 1,500 URLs and drag --copy of their gallery (about 200 KB of ops each) arrive complete, contiguous and in order on the other node")
    func largeDropsCrossNodes() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("bob")
        try space.start("alice", peers: ["bob"])
        #expect(try space.gallery("alice", "new-gallery", "src").status == 0)
        let urls = (0..<1_500).map { String(format: "https://images.example.org/albums/2026/summer/photo-%05d-full-size.jpeg", $0) }
        let opsBefore = try opCount(space, "alice")
        let added = try space.gallery("alice", ["add", "--to", "src"] + urls)
        #expect(added.status == 0, "\(added.stderr)")
        let ids = added.stdout.split(separator: "\n").map(String.init)
        #expect(ids.count == 1_500)
        // Several ops, each within the bound (200 KB of URLs and titles cannot fit one).
        #expect(try opCount(space, "alice") - opsBefore >= 3)
        #expect(try space.waitUntil { try space.column("id", on: "bob", "src") == ids }, "bob did not get alice's add")
        #expect(try space.column("url", on: "bob", "src") == urls)

        #expect(try space.gallery("bob", "new-gallery", "dst").status == 0)
        #expect(try space.gallery("bob", "add", "--to", "dst", "https://example.org/first.jpg", "https://example.org/last.jpg").status == 0)
        let drag = try space.gallery("bob", "drag", "src", "--to", "dst", "--at", "1", "--copy")
        #expect(drag.status == 0, "\(drag.stderr)")
        let expected = ["https://example.org/first.jpg"] + urls + ["https://example.org/last.jpg"]
        #expect(try space.column("url", on: "bob", "dst") == expected)
        #expect(try space.waitUntil { try space.column("url", on: "alice", "dst") == expected },
                "alice did not get bob's drop whole and in order")
        #expect(try space.column("id", on: "alice", "dst") == space.column("id", on: "bob", "dst"))
        // Both nodes still sync: a later op crosses too.
        #expect(try space.gallery("alice", "add", "--to", "dst", "https://example.org/after.jpg").status == 0)
        #expect(try space.waitUntil { try space.column("url", on: "bob", "dst").last == "https://example.org/after.jpg" })
    }
}

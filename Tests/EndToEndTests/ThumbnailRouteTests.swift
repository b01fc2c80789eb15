import Foundation
import GalleryCrypto
import Testing

/// `GET /thumbnails/HASH/SIZE` over real HTTP, on real `gallery serve --http` processes: the
/// thumbnails are made when a picture is added, stored as derived blobs (0600), served as
/// immutable JPEGs no larger than the size asked; a picture the node cannot decode, an unknown
/// hash, a size that is not 320 or 1280 and a holder gone are each a 404 saying why.
@Suite("thumbnails: GET /thumbnails/HASH/SIZE, made on arrival", .serialized)
struct ThumbnailRouteTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-thumbs-\(UUID().uuidString)")

    /// Adds `bytes` as a file on `node`; returns the item ID and the hash.
    private func add(_ bytes: [UInt8], named name: String, on node: WebNode) throws -> (item: String, hash: String) {
        let url = base.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        let added = try node.gallery("add", url.path)
        #expect(added.status == 0, "\(added.stderr)")
        return (try #require(added.stdout.split(separator: "\n").first.map(String.init)), SHA256.hex(SHA256.hash(bytes)))
    }

    static func derivedPath(_ hash: String, _ size: Int, on node: WebNode) -> String {
        node.directory.appendingPathComponent("blobs/derived/\(hash.prefix(2))/\(hash)-\(size).jpg").path
    }

    @Test("a JPEG added gets both thumbnails on disk (0600) with no request; the route serves them, 304 on If-None-Match; other sizes are 404")
    func madeOnArrivalAndServed() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("alice", base: base)
        defer { node.stop() }
        let picture = try add(PictureFiles.jpeg(width: 2_000, height: 1_500, seed: 1), named: "a.jpg", on: node)

        // Made on arrival, before any request.
        for size in [320, 1280] {
            let path = Self.derivedPath(picture.hash, size, on: node)
            #expect(waitUntil { FileManager.default.fileExists(atPath: path) }, "no \(size) thumbnail at \(path)")
            let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600, "mode \(String(mode ?? 0, radix: 8))")
        }
        for (size, expected) in [(320, (320, 240)), (1280, (1280, 960))] {
            let reply = try node.get("/thumbnails/\(picture.hash)/\(size)")
            #expect(reply.status == 200, "\(reply.text.prefix(200))")
            #expect(reply.headers["content-type"] == "image/jpeg")
            #expect(reply.headers["cache-control"] == "private, max-age=31536000, immutable")
            #expect(reply.headers["etag"] == "\"\(picture.hash)-\(size)\"")
            let decoded = try #require(PictureFiles.size(ofJPEG: reply.body), "not a JPEG")
            #expect(decoded.width == expected.0 && decoded.height == expected.1, "\(decoded)")
            #expect(reply.body == FileManager.default.contents(atPath: Self.derivedPath(picture.hash, size, on: node)).map(Array.init))
            let again = try node.get("/thumbnails/\(picture.hash)/\(size)", headers: [("If-None-Match", "\"\(picture.hash)-\(size)\"")])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
        }
        for size in ["640", "0", "0320", "-1", ""] {
            let reply = try node.get("/thumbnails/\(picture.hash)/\(size)")
            #expect(reply.status == 404, "size \(size): \(reply.status)")
        }
        // A picture smaller than 320 is never enlarged.
        let small = try add(PictureFiles.jpeg(width: 200, height: 100, seed: 2), named: "s.jpg", on: node)
        let reply = try node.get("/thumbnails/\(small.hash)/1280")
        #expect(reply.status == 200)
        let decoded = try #require(PictureFiles.size(ofJPEG: reply.body))
        #expect(decoded.width == 200 && decoded.height == 100)
    }

    @Test("a JPEG uploaded from a page gets both thumbnails when its bytes are in, with no request")
    func madeOnUpload() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("alice", base: base)
        defer { node.stop() }
        let bytes = PictureFiles.jpeg(width: 900, height: 600, seed: 7)
        let begun = try node.post("/api/uploads", ["to": "alice", "files": [["name": "up.jpg", "size": bytes.count, "mediaType": "image/jpeg"]]])
        #expect(begun.status == 201, "\(begun.text)")
        let upload = try #require((begun.json["uploads"] as? [[String: Any]])?.first?["upload"] as? String)
        let client = try node.client()
        client.send("PUT", "/api/uploads/\(upload)", host: node.host, headers: node.fields(change: "application/octet-stream"), body: bytes)
        let done = try #require(client.response(timeout: 60))
        #expect(done.status == 200, "\(done.text)")
        let hash = SHA256.hex(SHA256.hash(bytes))
        for size in [320, 1280] {
            #expect(waitUntil { FileManager.default.fileExists(atPath: Self.derivedPath(hash, size, on: node)) }, "no \(size) thumbnail")
        }
        let thumbnail = try #require(FileManager.default.contents(atPath: Self.derivedPath(hash, 320, on: node)))
        #expect(PictureFiles.size(ofJPEG: Array(thumbnail)).map { [$0.width, $0.height] } == [320, 213])
    }

    @Test("a file this node cannot decode: 404 notAnImage with the decoder's reason, the reason kept on disk; an unknown hash: 404 unknownBlob; a bad hash: 400")
    func refusals() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("alice", base: base)
        defer { node.stop() }
        // A PNG header followed by noise: the node accepts the file (it reads only the header) but cannot decode it.
        let broken = try add(WebAPITests.png(width: 640, height: 480, size: 20_000), named: "b.png", on: node)
        let reply = try node.get("/thumbnails/\(broken.hash)/320")
        #expect(reply.status == 404)
        #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(reply.json["error"] as? String == "notAnImage", "\(reply.text)")
        let message = try #require(reply.json["message"] as? String)
        #expect(message.hasPrefix("not an image this node can decode: "), "\(message)")
        #expect(message.count > "not an image this node can decode: ".count + 5, "\(message)")
        #expect(FileManager.default.fileExists(atPath: node.directory.appendingPathComponent(
            "blobs/derived/\(broken.hash.prefix(2))/\(broken.hash).failed").path))
        #expect(!FileManager.default.fileExists(atPath: Self.derivedPath(broken.hash, 320, on: node)))
        // status --json names the item and says why.
        let status = try node.gallery("status", "--json")
        let storage = try #require((try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["storage"] as? [String: Any])
        #expect(storage["noThumbnailCount"] as? Int == 1, "\(storage)")
        let listed = try #require((storage["noThumbnail"] as? [[String: Any]])?.first)
        #expect(listed["item"] as? String == broken.item)
        #expect(listed["reason"] as? String == message, "\(listed)")

        let unknown = try node.get("/thumbnails/\(String(repeating: "ab", count: 32))/320")
        #expect(unknown.status == 404)
        #expect(unknown.json["error"] as? String == "unknownBlob", "\(unknown.text)")
        let bad = try node.get("/thumbnails/XYZ/320")
        #expect(bad.status == 400)
        #expect(bad.json["error"] as? String == "badHash")
    }

    @Test("a picture only bob holds: alice serves its thumbnail (bob's, not made from his original); with bob stopped, a picture only he held is 404 notHeld, on bob, offline")
    func fromPeer() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let alice = try WebNode("alice", base: base)
        defer { alice.stop() }
        let listening = try #require(alice.process?.endpoint)
        let bob = try WebNode("bob", base: base, arguments: [
            "--peer", listening.description, "--secret-file", alice.directory.appendingPathComponent("secret").path,
        ])
        defer { bob.stop() }
        let picture = try add(PictureFiles.jpeg(width: 1_600, height: 1_200, seed: 3), named: "b.jpg", on: bob)
        #expect(waitUntil { (try? alice.ids("bob"))?.contains(picture.item) == true })
        let reply = try alice.get("/thumbnails/\(picture.hash)/320")
        #expect(reply.status == 200, "\(reply.text.prefix(200))")
        #expect(PictureFiles.size(ofJPEG: reply.body).map { [$0.width, $0.height] } == [320, 240])
        // bob's thumbnail travelled, not his original.
        #expect(!FileManager.default.fileExists(atPath: alice.directory.appendingPathComponent("blobs/\(picture.hash.prefix(2))/\(picture.hash)").path))

        // bob cannot decode this one, so no thumbnail of it exists anywhere; alice holds neither it nor its bytes.
        let broken = try add(WebAPITests.png(width: 640, height: 480, size: 20_000), named: "c.png", on: bob)
        #expect(waitUntil { (try? alice.ids("bob"))?.contains(broken.item) == true })
        bob.stop()
        let started = Date()
        let gone = try alice.get("/thumbnails/\(broken.hash)/320")
        #expect(Date().timeIntervalSince(started) < 3, "answered after \(Date().timeIntervalSince(started)) s")
        #expect(gone.status == 404)
        #expect(gone.json["error"] as? String == "notHeld", "\(gone.text)")
        #expect((gone.json["message"] as? String)?.hasPrefix("on bob, offline") == true, "\(gone.text)")
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

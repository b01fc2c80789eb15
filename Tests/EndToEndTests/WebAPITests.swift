import Foundation
import GalleryCrypto
import Testing

/// The JSON API, blobs and uploads of http-api.md against a real `gallery serve --http`: every
/// change made over HTTP is what the command line then lists.
@Suite("web adapter: API, blobs and uploads across processes", .serialized)
struct WebAPITests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-web-\(UUID().uuidString)")

    /// A PNG: a valid signature and header of `width` x `height`, then `size` bytes in all.
    static func png(width: UInt32, height: UInt32, size: Int) -> [UInt8] {
        var data: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        for value in [width, height] { data += withUnsafeBytes(of: value.bigEndian, Array.init) }
        data += [8, 2, 0, 0, 0, 0, 0, 0, 0]
        var generator = SystemRandomNumberGenerator()
        let words = (0..<(max(0, size - data.count) + 7) / 8).map { _ in generator.next() as UInt64 }
        return data + words.withUnsafeBytes { Array($0.prefix(max(0, size - data.count))) }
    }

    /// Writes bytes to a file under `base` and returns its path.
    private func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = base.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    @Test("galleries, add-url, move (a run), update, delete: each changes the node as the CLI lists it; refusals change nothing")
    func changes() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("api", base: base)
        defer { node.stop() }
        let status = try node.get("/api/status")
        #expect(status.status == 200)
        // The space ID of http-api.md section 1, from the secret's bytes.
        let secret = try Array(Data(contentsOf: node.directory.appendingPathComponent("secret")))
        #expect(status.json["space"] as? String == SHA256.hex(SHA256.hash(Array("gallerysync space id v1".utf8) + secret).prefix(16)))
        #expect(status.json["origin"] as? String == node.origin)

        let created = try node.post("/api/galleries", ["name": "trip"])
        #expect(created.status == 201)
        #expect(try node.gallery("galleries").stdout.contains("trip"))
        #expect(try node.post("/api/galleries", ["name": "trip"]).json["error"] as? String == "galleryExists")
        #expect(try node.post("/api/galleries", ["name": ""]).status == 400)

        let paths = try (0..<4).map { try file("i\($0).png", Self.png(width: 40, height: 30, size: 2_000 + $0)) }
        #expect(try node.gallery(["add"] + paths + ["--to", "trip"]).status == 0)
        var ids = try node.ids("trip")
        #expect(ids.count == 4)

        let added = try node.post("/api/items/add-url", ["url": "https://example.com/rome.jpg", "to": "trip", "index": 1, "aspectRatio": 1.5])
        #expect(added.status == 201)
        let urlItem = try #require((added.json["item"] as? [String: Any])?["id"] as? String)
        ids.insert(urlItem, at: 1)
        #expect(try node.ids("trip") == ids)
        #expect(try node.post("/api/items/add-url", ["url": "javascript:alert(1)", "to": "trip"]).json["error"] as? String == "badURL")

        // Items 3 and 0 (in that order) as one run at index 1 of the gallery without them.
        let moved = try node.post("/api/items/move", ["items": [ids[3], ids[0]], "to": "trip", "index": 1])
        #expect(moved.status == 200, "\(moved.text)")
        let rest = ids.filter { $0 != ids[3] && $0 != ids[0] }
        #expect(try node.ids("trip") == [rest[0], ids[3], ids[0]] + rest[1...])
        let before = try node.ids("trip")
        #expect(try node.post("/api/items/move", ["items": [ids[0]], "to": "nowhere"]).json["error"] as? String == "unknownGallery")
        #expect(try node.post("/api/items/move", ["items": [ids[0], ids[0]], "to": "trip"]).json["error"] as? String == "repeatedItem")
        #expect(try node.post("/api/items/move", ["items": [ids[0]], "to": "trip", "index": 99]).json["error"] as? String == "badIndex")
        #expect(try node.ids("trip") == before)

        // To another gallery (drop on its name): appended.
        #expect(try node.post("/api/items/move", ["items": [ids[2]], "to": "api"]).status == 200)
        #expect(try node.ids("api") == [ids[2]])

        #expect(try node.post("/api/items/update", ["item": ids[1], "field": "title", "value": "Rome"]).status == 200)
        #expect(try node.items("trip").first { $0["id"] as? String == ids[1] }?["title"] as? String == "Rome")
        #expect(try node.post("/api/items/update", ["item": ids[1], "field": "hash", "value": "x"]).json["error"] as? String == "badField")

        #expect(try node.post("/api/items/delete", ["items": [ids[1], ids[4]]]).status == 200)
        #expect(try node.ids("trip").contains(ids[1]) == false)
        #expect(try node.ids("trip").contains(ids[4]) == false)
        let deletedAgain = try node.post("/api/items/delete", ["items": [ids[1], ids[3]]])
        #expect(deletedAgain.status == 409 && deletedAgain.json["error"] as? String == "inTrash", "ids[1] is in the Trash already")
        #expect(try node.ids("trip").contains(ids[3]), "a refused delete deletes nothing")

        let items = try node.get("/api/galleries/trip/items")
        #expect((items.json["items"] as? [[String: Any]])?.map { $0["id"] as? String ?? "" } == (try node.ids("trip")))
        #expect(try node.get("/api/galleries/nowhere/items").json["error"] as? String == "unknownGallery")
        #expect(try node.post("/api/transfers/cancel", ["transfer": ids[0]]).json["error"] as? String == "unknownTransfer")
    }

    @Test("GET /blobs/HASH: a 24 MB blob streamed whole (hash checked), Range 206 and 416, ETag and 304, immutable, the stored type")
    func blobs() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("api", base: base)
        defer { node.stop() }
        let bytes = Self.png(width: 4000, height: 3000, size: 24 << 20)
        let hash = SHA256.hex(SHA256.hash(bytes))
        #expect(try node.gallery("add", try file("big.png", bytes)).status == 0)

        let client = try node.client()
        client.send("GET", "/blobs/\(hash)", host: node.host, headers: node.fields())
        let whole = try #require(client.response(timeout: 60))
        #expect(whole.status == 200)
        #expect(whole.body.count == bytes.count)
        #expect(SHA256.hex(SHA256.hash(whole.body)) == hash)
        #expect(whole.headers["etag"] == "\"\(hash)\"")
        #expect(whole.headers["cache-control"] == "private, max-age=31536000, immutable")
        #expect(whole.headers["content-type"] == "image/png")
        #expect(whole.headers["x-content-type-options"] == "nosniff")
        #expect(whole.headers["accept-ranges"] == "bytes")

        client.send("GET", "/blobs/\(hash)", host: node.host, headers: node.fields() + [("Range", "bytes=1000-1999")])
        let part = try #require(client.response())
        #expect(part.status == 206)
        #expect(part.headers["content-range"] == "bytes 1000-1999/\(bytes.count)")
        #expect(part.body == Array(bytes[1000...1999]))
        client.send("GET", "/blobs/\(hash)", host: node.host, headers: node.fields() + [("Range", "bytes=-16")])
        #expect(client.response()?.body == Array(bytes.suffix(16)))
        client.send("GET", "/blobs/\(hash)", host: node.host, headers: node.fields() + [("Range", "bytes=\(bytes.count)-")])
        let beyond = try #require(client.response())
        #expect(beyond.status == 416)
        #expect(beyond.headers["content-range"] == "bytes */\(bytes.count)")
        client.send("GET", "/blobs/\(hash)", host: node.host, headers: node.fields() + [("If-None-Match", "\"\(hash)\"")])
        let cached = try #require(client.response(headOnly: true))
        #expect(cached.status == 304)
        client.send("GET", "/blobs/\(String(hash.uppercased()))", host: node.host, headers: node.fields())
        #expect(client.response()?.json["error"] as? String == "badHash")
        client.send("GET", "/blobs/\(String(repeating: "0", count: 64))", host: node.host, headers: node.fields())
        #expect(client.response()?.json["error"] as? String == "unknownBlob")
    }

    @Test("upload: the placeholder stands at the index first, its progress is reported, then the PNG commits there with its hash; a non-image leaves nothing")
    func uploads() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("api", base: base)
        defer { node.stop() }
        let first = try file("a.png", Self.png(width: 10, height: 10, size: 500))
        #expect(try node.gallery("add", first, first).status == 0)
        let bytes = Self.png(width: 300, height: 200, size: 3 << 20)
        let begun = try node.post("/api/uploads", ["to": "api", "index": 1,
                                                    "files": [["name": "up.png", "size": bytes.count, "mediaType": "image/png"]]])
        #expect(begun.status == 201, "\(begun.text)")
        let upload = try #require((begun.json["uploads"] as? [[String: Any]])?.first)
        let item = try #require(upload["item"] as? String)
        let placeholder = try #require(try node.items("api").dropFirst().first)
        #expect(placeholder["id"] as? String == item)
        #expect(placeholder["state"] as? String == "placeholder")
        #expect(placeholder["title"] as? String == "up.png")

        let events = try node.client()
        events.send("GET", "/api/events", host: node.host, headers: node.fields())
        #expect(events.response(headOnly: true)?.status == 200)
        let client = try node.client()
        // The body in pieces, 120 ms apart: the placeholder's progress is reported meanwhile.
        let uploadID = upload["upload"] as? String ?? ""
        client.send(Array("PUT /api/uploads/\(uploadID) HTTP/1.1\r\nHost: \(node.host)\r\nCookie: gallery_session=\(node.token)\r\nOrigin: \(node.origin)\r\nContent-Type: application/octet-stream\r\nContent-Length: \(bytes.count)\r\n\r\n".utf8))
        let piece = (bytes.count + 3) / 4
        for start in stride(from: 0, to: bytes.count, by: piece) {
            client.send(Array(bytes[start..<min(start + piece, bytes.count)]))
            usleep(120_000)
        }
        let done = try #require(client.response(timeout: 60))
        #expect(done.status == 200, "\(done.text)")
        let hash = SHA256.hex(SHA256.hash(bytes))
        #expect(done.json["hash"] as? String == hash)
        let committed = try #require(try node.items("api").dropFirst().first)
        #expect(committed["id"] as? String == item)
        #expect(committed["state"] as? String == "ready")
        #expect(committed["hash"] as? String == hash)
        #expect(committed["aspectRatio"] as? Double == 1.5)
        let progress = events.streamText { $0.contains("event: progress") }
        #expect(progress.contains("event: progress") && progress.contains("\"id\":\"\(item)\""), "\(progress)")
        #expect(progress.contains("\"total\":\(bytes.count)"))
        let exported = base.appendingPathComponent("out.png")
        #expect(try node.gallery("export", item, exported.path).status == 0)
        #expect(try Array(Data(contentsOf: exported)) == bytes)

        // Refused at once by its declared type: nothing inserted.
        let count = try node.ids("api").count
        let refused = try node.post("/api/uploads", ["to": "api", "files": [["name": "notes.txt", "size": 5, "mediaType": "text/plain"]]])
        #expect(refused.status == 415)
        #expect(refused.json["error"] as? String == "notAnImage")
        #expect((refused.json["message"] as? String)?.contains("notes.txt") == true)
        #expect(try node.ids("api").count == count)
        // Declared an image, but its bytes are not one: the placeholder goes, nothing is stored.
        let fake = Array("this is not a picture at all".utf8)
        let liar = try node.post("/api/uploads", ["to": "api", "files": [["name": "fake.png", "size": fake.count, "mediaType": "image/png"]]])
        let liarUpload = try #require((liar.json["uploads"] as? [[String: Any]])?.first?["upload"] as? String)
        client.send("PUT", "/api/uploads/\(liarUpload)", host: node.host, headers: node.fields(change: "application/octet-stream"), body: fake)
        let notImage = try #require(client.response())
        #expect(notImage.status == 415)
        #expect(try node.ids("api").count == count)
        let blobs = try FileManager.default.contentsOfDirectory(atPath: node.directory.appendingPathComponent("blobs").path)
        #expect(!blobs.contains(SHA256.hex(SHA256.hash(fake))))
        let temporary = try FileManager.default.contentsOfDirectory(atPath: node.directory.appendingPathComponent("blobs/tmp").path)
        #expect(temporary.isEmpty, "\(temporary)")
        // A wrong length: refused unread, placeholder deleted.
        let short = try node.post("/api/uploads", ["to": "api", "files": [["name": "s.png", "size": 100, "mediaType": "image/png"]]])
        let shortUpload = try #require((short.json["uploads"] as? [[String: Any]])?.first?["upload"] as? String)
        let other = try node.client()
        other.send("PUT", "/api/uploads/\(shortUpload)", host: node.host, headers: node.fields(change: "application/octet-stream"),
                   body: Array(bytes.prefix(50)))
        #expect(other.response()?.json["error"] as? String == "badLength")
        #expect(try node.ids("api").count == count)
        // DELETE abandons an upload.
        let gone = try node.post("/api/uploads", ["to": "api", "files": [["name": "g.png", "size": 100, "mediaType": "image/png"]]])
        let goneUpload = try #require((gone.json["uploads"] as? [[String: Any]])?.first?["upload"] as? String)
        #expect(try node.ids("api").count == count + 1)
        let third = try node.client()
        third.send("DELETE", "/api/uploads/\(goneUpload)", host: node.host, headers: node.fields(change: "application/json"))
        #expect(third.response()?.status == 200)
        #expect(try node.ids("api").count == count)
        // An upload never finished when the node stops: its placeholder is gone after the restart.
        let left = try node.post("/api/uploads", ["to": "api", "files": [["name": "l.png", "size": 100, "mediaType": "image/png"]]])
        #expect(left.status == 201)
        #expect(try node.ids("api").count == count + 1)
        node.stop()
        try node.start()
        #expect(try node.ids("api").count == count)
    }
}

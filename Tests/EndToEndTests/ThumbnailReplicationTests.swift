import Foundation
import GalleryCrypto
import Testing

/// Eager replication of thumbnails across real `gallery serve` processes: a picture added on bob
/// gets its thumbnails on alice with no drag and no request, the original staying on bob; with
/// bob killed, alice still serves both.
@Suite("thumbnails replicate eagerly between nodes", .serialized)
struct ThumbnailReplicationTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-thumbrep-\(UUID().uuidString)")

    @Test("a JPEG added on bob: alice stores both thumbnails by herself (not the original); bob killed, alice serves them")
    func replicatedThenServedWithSourceGone() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let alice = try WebNode("alice", base: base)
        defer { alice.stop() }
        let listening = try #require(alice.process?.endpoint)
        let bob = try WebNode("bob", base: base, arguments: [
            "--peer", listening.description, "--secret-file", alice.directory.appendingPathComponent("secret").path,
        ])
        defer { bob.stop() }
        var pictures: [(bytes: [UInt8], hash: String)] = []
        for seed in 0..<3 {
            let bytes = PictureFiles.jpeg(width: 1_400, height: 1_000, seed: 10 + seed)
            let url = base.appendingPathComponent("p\(seed).jpg")
            try Data(bytes).write(to: url)
            let added = try bob.gallery("add", url.path)
            #expect(added.status == 0, "\(added.stderr)")
            pictures.append((bytes, SHA256.hex(SHA256.hash(bytes))))
        }
        for picture in pictures {
            for size in [320, 1280] {
                let path = ThumbnailRouteTests.derivedPath(picture.hash, size, on: alice)
                #expect(waitUntil { FileManager.default.fileExists(atPath: path) }, "alice never got the \(size) thumbnail of \(picture.hash.prefix(12))")
            }
            // The original stays on bob: thumbnails travel, not the bytes.
            #expect(!FileManager.default.fileExists(atPath: alice.directory.appendingPathComponent("blobs/\(picture.hash.prefix(2))/\(picture.hash)").path))
        }
        let bobsThumbnail = try #require(FileManager.default.contents(atPath: ThumbnailRouteTests.derivedPath(pictures[0].hash, 320, on: bob)))

        _ = bob.process?.stop(signal: SIGKILL)
        for picture in pictures {
            for (size, long) in [(320, 320), (1280, 1280)] {
                let reply = try alice.get("/thumbnails/\(picture.hash)/\(size)")
                #expect(reply.status == 200, "\(reply.text.prefix(200))")
                #expect(PictureFiles.size(ofJPEG: reply.body).map { max($0.width, $0.height) } == long)
            }
        }
        // The same bytes bob made, not a copy remade from something else.
        #expect(try alice.get("/thumbnails/\(pictures[0].hash)/320").body == Array(bobsThumbnail))
    }

    @Test("alice joins a space where bob holds 60 pictures: she gets all 120 thumbnails (8 pictures asked at a time), no original")
    func joinerGetsEveryThumbnail() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let bob = try WebNode("bob", base: base)
        defer { bob.stop() }
        let folder = base.appendingPathComponent("pictures")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var hashes: [String] = []
        for index in 0..<60 {
            let bytes = PictureFiles.jpeg(width: 160, height: 120, seed: 100 + index)
            try Data(bytes).write(to: folder.appendingPathComponent("p\(index).jpg"))
            hashes.append(SHA256.hex(SHA256.hash(bytes)))
        }
        let added = try bob.gallery("add", folder.path)
        #expect(added.status == 0, "\(added.stderr)")
        let listening = try #require(bob.process?.endpoint)
        let alice = try WebNode("alice", base: base, arguments: [
            "--peer", listening.description, "--secret-file", bob.directory.appendingPathComponent("secret").path,
        ])
        defer { alice.stop() }
        let all = waitUntil {
            hashes.allSatisfy { hash in
                [320, 1280].allSatisfy { FileManager.default.fileExists(atPath: ThumbnailRouteTests.derivedPath(hash, $0, on: alice)) }
            }
        }
        #expect(all, "alice lacks thumbnails of \(hashes.filter { !FileManager.default.fileExists(atPath: ThumbnailRouteTests.derivedPath($0, 320, on: alice)) }.count) pictures")
        let held = try FileManager.default.contentsOfDirectory(atPath: alice.directory.appendingPathComponent("blobs").path)
            .filter { $0.count == 2 }
        #expect(held.isEmpty, "alice holds originals: \(held)")
        let status = try alice.gallery("status", "--json")
        let storage = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["storage"] as? [String: Any]
        #expect(storage?["thumbnailsMissing"] as? Int == 0, "\(status.stdout)")
        #expect((storage?["thumbnailBytes"] as? Int ?? 0) > 0)
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

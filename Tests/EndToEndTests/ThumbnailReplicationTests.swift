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

    private func waitUntil(timeout: TimeInterval = 30, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}

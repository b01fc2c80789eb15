import Foundation
import GalleryCrypto
import Testing

/// Issue 24: when no peer holds a picture's thumbnail but one holds its original, a node asked for
/// the thumbnail fetches the original (verified) and makes the thumbnail itself. Real
/// `gallery serve --http` processes over real TCP on 127.0.0.1.
@Suite("thumbnails: made from the original fetched when no peer has them", .serialized)
struct ThumbnailFromOriginalTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-thumbs-original-\(UUID().uuidString)")

    @Test("bob holds the original but has no thumbnail to give: alice's GET /thumbnails fetches the original and makes both sizes; bob still has none")
    func madeFromFetchedOriginal() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let bob = try WebNode("bob", base: base)
        defer { bob.stop() }
        let bytes = PictureFiles.jpeg(width: 1_600, height: 1_200, seed: 11)
        let hash = SHA256.hex(SHA256.hash(bytes))
        let file = base.appendingPathComponent("b.jpg")
        try Data(bytes).write(to: file)
        let added = try bob.gallery("add", file.path)
        #expect(added.status == 0, "\(added.stderr)")
        let item = try #require(added.stdout.split(separator: "\n").first.map(String.init))
        let bobThumbnails = [320, 1280].map { ThumbnailRouteTests.derivedPath(hash, $0, on: bob) }
        #expect(waitUntil { bobThumbnails.allSatisfy { FileManager.default.fileExists(atPath: $0) } }, "bob made no thumbnails")
        // bob has none to give: his are gone and his attempt is on record as failed (a node that could not
        // make them, e.g. out of memory or disk at the time), so he answers thumbnail requests with nothing
        // and never remakes them; he can send only the original.
        for path in bobThumbnails { try FileManager.default.removeItem(atPath: path) }
        let failure = bob.directory.appendingPathComponent("blobs/derived/\(hash.prefix(2))/\(hash).failed")
        try Data("could not make the thumbnail here".utf8).write(to: failure)

        let listening = try #require(bob.process?.endpoint)
        let alice = try WebNode("alice", base: base, arguments: [
            "--peer", listening.description, "--secret-file", bob.directory.appendingPathComponent("secret").path,
        ])
        defer { alice.stop() }
        #expect(waitUntil { (try? alice.ids("bob"))?.contains(item) == true })
        let original = alice.directory.appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path
        #expect(!FileManager.default.fileExists(atPath: original), "alice fetched the original before anyone asked")

        let small = try alice.get("/thumbnails/\(hash)/320")
        #expect(small.status == 200, "\(small.text.prefix(300))")
        #expect(small.headers["content-type"] == "image/jpeg")
        #expect(PictureFiles.size(ofJPEG: small.body).map { [$0.width, $0.height] } == [320, 240])
        // Made here, from the original now held here and verified by its hash.
        #expect(FileManager.default.fileExists(atPath: original))
        #expect(FileManager.default.contents(atPath: original).map { SHA256.hex(SHA256.hash(Array($0))) } == hash)
        #expect(FileManager.default.fileExists(atPath: ThumbnailRouteTests.derivedPath(hash, 320, on: alice)))
        let large = try alice.get("/thumbnails/\(hash)/1280")
        #expect(large.status == 200, "\(large.text.prefix(300))")
        #expect(PictureFiles.size(ofJPEG: large.body).map { [$0.width, $0.height] } == [1280, 960])
        // Not bob's: he still has none.
        #expect(bobThumbnails.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
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

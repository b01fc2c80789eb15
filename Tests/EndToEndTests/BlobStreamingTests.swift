import Foundation
import GalleryCrypto
import Testing

/// Issue 24, "serving as they arrive": `GET /blobs/HASH` for bytes only a peer holds streams them
/// to the page while the fetch runs; its last byte waits for the hash check, and bytes that do not
/// hash to the item's hash abort the response short of its `Content-Length`. Real `gallery serve`
/// processes; bob reaches alice through a relay on 127.0.0.1 whose way back to bob can be held.
@Suite("blobs: bytes streamed to the page as they arrive from a peer", .serialized)
struct BlobStreamingTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-blob-stream-\(UUID().uuidString)")

    /// A JPEG with `extra` random bytes after its end (a large original that still decodes).
    private func largePicture(extra: Int, seed: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return PictureFiles.jpeg(width: 320, height: 240, seed: seed) + (0..<extra).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// alice (holding `bytes` as an item), bob dialing her through `relay`, the item known on bob.
    private func nodes(_ bytes: [UInt8]) throws -> (alice: WebNode, bob: WebNode, relay: GatedRelay, hash: String) {
        let alice = try WebNode("alice", base: base)
        let file = base.appendingPathComponent("big.jpg")
        try Data(bytes).write(to: file)
        let added = try alice.gallery("add", file.path)
        #expect(added.status == 0, "\(added.stderr)")
        let item = try #require(added.stdout.split(separator: "\n").first.map(String.init))
        let relay = try GatedRelay(to: try #require(alice.process?.endpoint))
        let bob = try WebNode("bob", base: base, arguments: [
            "--peer", relay.endpoint.description, "--secret-file", alice.directory.appendingPathComponent("secret").path,
        ])
        #expect(waitUntil { (try? bob.ids("alice"))?.contains(item) == true })
        return (alice, bob, relay, SHA256.hex(SHA256.hash(bytes)))
    }

    private func storedPath(_ hash: String, on node: WebNode) -> String {
        node.directory.appendingPathComponent("blobs/\(hash.prefix(2))/\(hash)").path
    }

    /// The head's end in `raw` (after the blank line), if it came.
    private func headEnd(_ raw: [UInt8]) -> Int? {
        let blank: [UInt8] = Array("\r\n\r\n".utf8)
        guard raw.count >= 4 else { return nil }
        return (0...(raw.count - 4)).first { raw[$0..<($0 + 4)].elementsEqual(blank) }.map { $0 + 4 }
    }

    @Test("bytes only alice holds reach bob's page while bob still fetches them: head and part of the body before the blob is stored, then the whole, verified")
    func streamsWhileFetching() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let bytes = largePicture(extra: 6 << 20, seed: 5)
        let (alice, bob, relay, hash) = try nodes(bytes)
        defer { alice.stop(); bob.stop(); relay.stop() }
        // From now on alice's answers reach bob 1.5 MB at most, until released.
        relay.hold(after: 1_500_000)
        let client = try bob.client()
        client.send("GET", "/blobs/\(hash)", host: bob.host, headers: bob.fields())
        let partial = client.rawBytes { raw in headEnd(raw).map { raw.count - $0 >= 256 << 10 } ?? false }
        let end = try #require(headEnd(partial), "no head while the fetch was held: \(String(decoding: partial.prefix(300), as: UTF8.self))")
        let head = String(decoding: partial[..<end], as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
        #expect(head.lowercased().contains("content-length: \(bytes.count)\r\n"), "\(head)")
        // Part of the body came while the rest was held back on its way from alice: streamed, not stored first.
        #expect(partial.count - end >= 256 << 10)
        #expect(partial.count - end < bytes.count)
        #expect(!FileManager.default.fileExists(atPath: storedPath(hash, on: bob)), "bob stored the blob before the page had any of it")
        relay.release()
        let whole = client.rawBytes(timeout: 60) { $0.count >= end + bytes.count }
        #expect(whole.count == end + bytes.count)
        #expect(SHA256.hex(SHA256.hash(Array(whole[end...]))) == hash)
        #expect(waitUntil { FileManager.default.fileExists(atPath: storedPath(hash, on: bob)) })
    }

    @Test("bytes that do not hash to the item's hash: the streamed response is aborted short of its Content-Length, never completed, nor is the next request's")
    func abortsOnMismatch() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let bytes = largePicture(extra: 3 << 20, seed: 6)
        let (alice, bob, relay, hash) = try nodes(bytes)
        defer { alice.stop(); bob.stop(); relay.stop() }
        // alice's copy rots on disk: she sends bytes that are not the blob.
        let handle = try #require(FileHandle(forUpdatingAtPath: storedPath(hash, on: alice)))
        try handle.seek(toOffset: UInt64(bytes.count / 2))
        try handle.write(contentsOf: Data([bytes[bytes.count / 2] ^ 0xFF]))
        try handle.close()

        let client = try bob.client()
        client.send("GET", "/blobs/\(hash)", host: bob.host, headers: bob.fields())
        let raw = client.rawBytes(timeout: 30) { _ in false }
        #expect(client.closedByServer, "the response was neither completed nor aborted")
        let end = try #require(headEnd(raw), "no head: \(String(decoding: raw.prefix(300), as: UTF8.self))")
        let head = String(decoding: raw[..<end], as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
        #expect(head.lowercased().contains("content-length: \(bytes.count)\r\n"), "\(head)")
        #expect(raw.count - end < bytes.count, "the response was completed with bytes that are not the blob")
        #expect(!FileManager.default.fileExists(atPath: storedPath(hash, on: bob)))
        // Asked again, bob asks alice again (a new fetch): a 404 notHeld, or once more an aborted stream;
        // never a completed 200.
        let second = try bob.client()
        second.send("GET", "/blobs/\(hash)", host: bob.host, headers: bob.fields() + [("Connection", "close")])
        let again = second.rawBytes(timeout: 30) { _ in false }
        let againEnd = try #require(headEnd(again), "no answer: \(String(decoding: again.prefix(300), as: UTF8.self))")
        let againHead = String(decoding: again[..<againEnd], as: UTF8.self)
        if againHead.hasPrefix("HTTP/1.1 200") {
            #expect(again.count - againEnd < bytes.count, "a second request was completed with bytes that are not the blob")
        } else {
            #expect(againHead.hasPrefix("HTTP/1.1 404"), "\(againHead)")
            #expect(String(decoding: again[againEnd...], as: UTF8.self).contains("\"notHeld\""))
        }
        #expect(!FileManager.default.fileExists(atPath: storedPath(hash, on: bob)))
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

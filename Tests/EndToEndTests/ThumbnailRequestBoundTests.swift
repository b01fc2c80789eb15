import Foundation
import GalleryCrypto
import GalleryModel
import GalleryNode
import GalleryTestSupport
import GalleryWire
import Testing

/// The bound on eager thumbnail requests (protocol.md, section 8.1), seen from a raw peer: a real
/// `gallery serve` node that learns of 100 pictures from it asks for the thumbnails of 8 at a time
/// (16 `thumbnail_fetch`), never more while none is answered; one answered "none" frees its slot
/// for the next picture.
@Suite("thumbnail requests are bounded", .serialized)
struct ThumbnailRequestBoundTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-thumbbound-\(UUID().uuidString)")

    @Test("100 pictures named by a raw peer: 16 requests (8 pictures), no 17th; answering one picture 'none' brings the next picture's 2")
    func boundedRequests() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let alice = try WebNode("alice", base: base)
        defer { alice.stop() }
        let endpoint = try #require(alice.process?.endpoint)
        let secret = try Array(Data(contentsOf: alice.directory.appendingPathComponent("secret")))
        var peer = try RawPeer(connectingTo: endpoint, secret: secret)
        defer { peer.streams.close() }

        // A member of a version 4 space: its ops are signed under the replica ID bound to its key.
        var signer = NodeConfiguration(name: "raw", secret: secret)
        signer.replicaSalt = 0xB0B
        var replica = Replica(id: ReplicaBinding(secret: secret, nodeKey: signer.staticKey).replicaID(salt: 0xB0B))
            .signing(with: signer)
        try replica.createGallery("raw")
        let drafts = (0..<100).map { index in
            ItemDraft(fields: [
                .title: .text("p\(index)"), .contentHash: .text(SHA256.hex(SHA256.hash(Array("picture \(index)".utf8)))),
                .byteSize: .integer(5_000_000), .mediaType: .text("image/jpeg"),
            ])
        }
        try replica.insert(drafts, into: "raw", at: 0)
        peer.send(.syncRequest(VersionVector()))
        peer.send(.ops(replica.ops(missingFrom: VersionVector())))

        /// Reads until `deadline`, or until `enough` holds of the requests seen; returns them.
        func requests(until deadline: Date, enough: ([ThumbnailName]) -> Bool) throws -> [ThumbnailName] {
            var seen: [ThumbnailName] = []
            while Date() < deadline, !enough(seen) {
                // The node sends a heartbeat at least every second: a read never waits longer.
                if case .thumbnailFetch(let name) = try peer.receive() { seen.append(name) }
            }
            return seen
        }
        let first = try requests(until: Date().addingTimeInterval(30)) { $0.count >= 16 }
        #expect(first.count == 16, "\(first.count) requests")
        #expect(Set(first.map(\.hash)).count == 8)
        #expect(Set(first.map(\.size)) == [320, 1280])
        // Nothing more while none is answered (the 10 s answer timeout is far off).
        let more = try requests(until: Date().addingTimeInterval(2)) { !$0.isEmpty }
        #expect(more.isEmpty, "\(more.count) more requests before any answer")

        let answered = first[0]
        peer.send(.thumbnail(answered, data: []))
        let next = try requests(until: Date().addingTimeInterval(20)) { $0.count >= 2 }
        #expect(next.count == 2)
        #expect(Set(next.map(\.hash)).count == 1)
        #expect(!Set(first.map(\.hash)).contains(next[0].hash), "a picture asked again")
    }
}

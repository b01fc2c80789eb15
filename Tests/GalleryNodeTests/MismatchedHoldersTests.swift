import Foundation
import GalleryModel
@testable import GalleryNode
@testable import GalleryStorage
import Testing

extension NodeSuites {
    /// A holder that sent bytes of another hash is remembered beyond the download that caught it
    /// (per hash, bounded): a later fetch of the blob asks another holder, never the liar again.
    @Suite("Holders that sent mismatching bytes")
    struct MismatchedHoldersTests {
        typealias Mesh = DemandTests.Mesh

        /// Replaces `hash`'s stored bytes on `name` with `bytes` (its store now lies about the hash).
        static func rot(_ hash: String, on name: String, in mesh: Mesh, with bytes: [UInt8]) throws {
            let path = mesh.base.appendingPathComponent("\(name)/blobs/\(hash.prefix(2))/\(hash)")
            try FileManager.default.removeItem(at: path)
            try Data(bytes).write(to: path)
        }

        @Test("a lying holder (its stored bytes rotted) is asked once: bob's reader is told hashMismatch; once carol, who holds the real bytes, connects, bob's next reader gets them from her and alice is not asked again")
        func liarNotAskedAgain() throws {
            let mesh = try Mesh(["alice", "bob"])
            let bytes = DemandTests.random(600_000, seed: 21)
            // alice added the item, so she is the first holder asked; her copy rotted.
            let item = try mesh.add(bytes, on: "alice")
            let hash = try #require(item.contentHash)
            var rotten = bytes
            rotten[rotten.count / 3] ^= 0x5A
            try Self.rot(hash, on: "alice", in: mesh, with: rotten)

            var before = mesh.bytesReceivedByBob(from: "alice")
            #expect(throws: DemandFailure.hashMismatch) { try mesh["bob"].demandBytes(of: item) }
            #expect(mesh.bytesReceivedByBob(from: "alice") - before >= bytes.count, "alice was asked and sent her bytes")
            #expect(!mesh.store("bob").contains(hash), "the mismatching bytes were stored")
            let transfers = try #require(mesh["bob"].transfers)
            #expect(transfers.lock.withLock { transfers.mismatchedHolders.count } == 1)

            // Asked again with only alice connected: answered at once, without asking her.
            before = mesh.bytesReceivedByBob(from: "alice")
            #expect(throws: DemandFailure.hashMismatch) { try mesh["bob"].demandBytes(of: item) }
            #expect(mesh.bytesReceivedByBob(from: "alice") - before < bytes.count / 4, "alice was asked again")

            // carol, holding the real bytes, connects to bob.
            let carol = try Mesh.node("carol", in: mesh.base)
            defer { carol.stop() }
            #expect(try (carol.configuration.blobs as! BlobStore).put(bytes) == hash)
            mesh["bob"].keepConnected(to: carol.endpoint!)
            #expect(mesh["bob"].waitForPeers(timeout: .seconds(20)) { $0.count(where: { $0.state == .live }) == 2 })

            before = mesh.bytesReceivedByBob(from: "alice")
            let fromCarol = mesh["bob"].peers.filter { $0.name == "carol" }.map(\.bytesReceived).reduce(0, +)
            try mesh["bob"].demandBytes(of: item)
            #expect(try mesh.store("bob").read(hash, offset: 0, length: bytes.count) == bytes)
            #expect(mesh.bytesReceivedByBob(from: "alice") - before < bytes.count / 4, "alice, who lied, was asked again")
            let received = mesh["bob"].peers.filter { $0.name == "carol" }.map(\.bytesReceived).reduce(0, +) - fromCarol
            #expect(received >= bytes.count, "carol sent \(received) bytes")
        }

        @Test("the memory is bounded: at most 1,024 hashes (the oldest forgotten first), 16 peers each, an hour per entry")
        func bounded() {
            var memory = MismatchedHolders()
            let liar = ReplicaID(deriving: "liar")
            for index in 0..<(MismatchedHolders.capacity + 10) {
                memory.note([liar], for: "hash-\(index)", reason: "r", now: 1_000)
            }
            #expect(memory.count == MismatchedHolders.capacity)
            #expect(memory.suspects(of: "hash-0", now: 1_000) == nil, "the oldest was kept")
            #expect(memory.suspects(of: "hash-\(MismatchedHolders.capacity + 9)", now: 1_000)?.replicas == [liar])

            // Noting a hash again makes it the newest: not the next forgotten.
            memory.note([liar], for: "hash-10", reason: "again", now: 2_000)
            memory.note([liar], for: "fresh", reason: "r", now: 2_000)
            #expect(memory.suspects(of: "hash-10", now: 2_000)?.reason == "again")
            #expect(memory.suspects(of: "hash-11", now: 2_000) == nil)

            let many = Set((0..<40).map { ReplicaID(deriving: "peer-\($0)") })
            memory.note(many, for: "crowd", reason: "r", now: 3_000)
            #expect(memory.suspects(of: "crowd", now: 3_000)?.replicas.count == MismatchedHolders.replicasPerHash)

            #expect(memory.suspects(of: "crowd", now: 3_000 + MismatchedHolders.lifetime - 1) != nil)
            let before = memory.count
            #expect(memory.suspects(of: "crowd", now: 3_000 + MismatchedHolders.lifetime) == nil, "kept past its lifetime")
            #expect(memory.count == before - 1)
        }
    }
}

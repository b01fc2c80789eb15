import Foundation
import GalleryCrypto
import GalleryModel
@testable import GalleryNode
@testable import GalleryStorage
import Testing

extension NodeSuites {
    /// A request for bytes whose adder is offline goes to a peer that says it holds them (the
    /// availability summary, protocol.md section 8.2), not to each connected peer in turn.
    @Suite("Bytes on demand routed by the availability summary")
    struct AvailabilityRoutingTests {
        @Test("with the adder offline, bob asks every peer once with holds_query and fetches from the holder: no peer answers not_found")
        func routedToHolder() throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-availability-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: base) }
            var nodes: [String: SyncNode] = [:]
            defer { for node in nodes.values { node.stop() } }
            for name in ["alice", "bob", "carol", "dave", "erin"] { nodes[name] = try DemandTests.Mesh.node(name, in: base) }
            let bob = nodes["bob"]!
            // bob dials the two peers without the bytes first, so that asking in connection order
            // would ask both of them before carol.
            for (index, name) in ["alice", "dave", "erin", "carol"].enumerated() {
                bob.keepConnected(to: nodes[name]!.endpoint!)
                #expect(bob.waitForPeers(timeout: .seconds(20)) { $0.count(where: { $0.state == .live }) == index + 1 })
            }
            let bytes = DemandTests.random(256 << 10, seed: 42)
            let blobs = { (name: String) in nodes[name]!.configuration.blobs as! BlobStore }
            let hash = try blobs("alice").put(bytes)
            #expect(try blobs("carol").put(bytes) == hash)
            let op = try nodes["alice"]!.perform { replica in
                try replica.insert(
                    [ItemDraft(fields: [.title: .text("x"), .contentHash: .text(hash), .byteSize: .integer(Int64(bytes.count))])],
                    into: "alice", at: 0)
            }
            #expect(bob.wait(timeout: .seconds(20)) { $0.item(op.id) != nil })
            nodes.removeValue(forKey: "alice")?.stop()
            #expect(bob.waitForPeers(timeout: .seconds(20)) { $0.count(where: { $0.state == .live }) == 3 })

            let transfers = try #require(bob.transfers)
            let refusedBefore = transfers.fetchesNotFound
            let answers = DemandTests.Answers()
            #expect(bob.demandBytes(named: hash, answer: answers.answer))
            let results = answers.wait(for: 1)
            #expect(results.count == 1 && (try? results[0].get()) != nil, "\(results)")
            #expect(try blobs("bob").read(hash, offset: 0, length: bytes.count) == bytes)
            #expect(transfers.fetchesNotFound == refusedBefore, "bob asked a peer without the bytes")
        }
    }
}

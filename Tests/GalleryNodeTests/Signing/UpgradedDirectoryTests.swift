import Foundation
import GalleryCrypto
@testable import GalleryHost
import GalleryModel
@testable import GalleryNode
import GalleryStorage
import GalleryTestSupport
import Testing

extension NodeSuites.AdversarialPeerTests {
    /// A version 3 directory: the secret, a random replica ID in `replica`, and an op log of
    /// unsigned ops made under it.
    static func writeVersion3Directory(_ dir: URL, replica: ReplicaID, ops: [Op]) throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try StorageFixtures.write(TestCluster.secret, to: dir.appendingPathComponent("secret"))
        try StorageFixtures.write(Array((replica.description + "\n").utf8), to: dir.appendingPathComponent("replica"))
        let (log, _, _) = try OpLogFile.open(at: dir.appendingPathComponent("oplog"))
        try log.appendAndSync(ops)
    }

    @Test("An upgraded version 3 directory keeps its unsigned ops, makes new ones signed under a bound replica ID, and sends peers only those")
    func upgradedDirectory() throws {
        try StorageFixtures.withScratchDirectory { scratch in
            let dir = scratch.appendingPathComponent("old")
            let legacyID = ReplicaID(0x0123_4567_89ab_cdef)
            var legacy = Replica(id: legacyID)
            let legacyOps = [try legacy.createGallery("old"), try legacy.insert([.titled("kept")], into: "old", at: 0)]
            try Self.writeVersion3Directory(dir, replica: legacyID, ops: legacyOps)

            let server = try GalleryServer(directory: dir, name: "old", listen: .init(host: "127.0.0.1", port: 0), log: .silent)
            try server.start()
            let newID = server.node.read { $0.id }
            #expect(newID != legacyID)
            #expect(try server.node.read { try $0.item(at: 0, in: "old").title } == "kept")
            try server.node.perform { replica in
                _ = try replica.createGallery("new")
                _ = try replica.insert([.titled("signed")], into: "new", at: 0)
            }
            let made = server.node.read { $0.chain(of: newID) }
            #expect(made.count == 2 && made.allSatisfy { $0.seal?.signature != nil })
            #expect(made.first?.seal?.keyClaim != nil)

            // A fresh member gets the signed ops, none of the unsigned ones, and no connection is
            // closed for a forged op.
            let fresh = try Self.signedCluster(["fresh"])
            defer { fresh.stop() }
            let peer = fresh.nodes[0]
            peer.keepConnected(to: try #require(server.node.endpoint))
            #expect(peer.wait(timeout: .seconds(20)) { (try? $0.item(at: 0, in: "new").title) == "signed" })
            #expect(peer.read { $0.version[legacyID] } == 0)
            #expect(fresh.logged("FORGED OP").isEmpty)
            #expect(server.node.peers.contains { $0.state == .live })
            server.stop()

            // Restarted: the same bound replica ID (its salt is kept), the unsigned ops still there.
            let restarted = try GalleryServer(directory: dir, name: "old", listen: .init(host: "127.0.0.1", port: 0), log: .silent)
            defer { restarted.stop() }
            #expect(restarted.node.read { $0.id } == newID)
            #expect(try restarted.node.read { try $0.item(at: 0, in: "old").title } == "kept")
        }
    }
}

import Foundation
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

extension NodeSuites {
    /// A catch-up from a relay's log, over TCP on 127.0.0.1 (protocol.md, "Signed ops"): the relay
    /// holds the author's signatures only at checkpoints and at the ends of the frames it got.
    @Suite("Signed catch-up through a relay")
    struct SignedRelayCatchUpTests {
        @Test("C catches up 13,001 signed ops from B, which got them from A in one frame, in frames 16 times smaller; A is gone")
        func catchUpFromARelaysLog() throws {
            // A: the author, its log as a node that made them holds it (restored from its files).
            let alice = SignedReplicaFixture(seed: 1)
            let ops = try SignatureCheckpointTests.aliceChain(count: 13_000, alice: alice)
            var restored = Replica(id: alice.replica.id)
            for op in ops { restored.receive(op) }
            var configuration = NodeConfiguration(name: "alpha", secret: TestCluster.secret, staticKey: alice.nodeKey,
                                                  catchUpBatchBytes: 1 << 20, log: .silent)
            configuration.replicaSalt = alice.salt
            let a = SyncNode(configuration: configuration, replica: restored)
            try a.start()
            defer { a.stop() }
            // B (index 0) takes A's ops in 1 MiB frames; C (index 1) asks B only, which answers in 64 KiB frames.
            let cluster = try TestCluster(["beta", "gamma"]) { index, configuration in
                configuration.replicaSalt = UInt64(index + 1)
                configuration.catchUpBatchBytes = index == 0 ? 64 << 10 : 1 << 20
            }
            defer { cluster.stop() }
            let (b, c) = (cluster.nodes[0], cluster.nodes[1])
            let target = a.read { $0.version }
            b.keepConnected(to: try #require(a.endpoint))
            #expect(b.wait(timeout: .seconds(60)) { $0.version.includes(target) })
            a.stop()
            let kept = b.read { $0.chain(of: alice.replica.id) }.filter { $0.seal?.signature != nil }.count
            #expect(kept < 10, "B keeps A's checkpoints and the last op's signature, not every op's")
            c.keepConnected(to: try #require(b.endpoint))
            #expect(c.wait(timeout: .seconds(60)) { $0.version.includes(target) })
            #expect(cluster.logged("FORGED").isEmpty)
            #expect(c.read { try? $0.items(in: "g").count } == 13_000)
        }
    }
}

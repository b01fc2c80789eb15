import Foundation
import GalleryModel
import GalleryNode
import Testing

extension NodeSuites {
    /// Peer connections over TCP on the node's event loops: relay, reconnection, refusal.
    @Suite("Peer I/O")
    struct PeerIOTests {
        @Test("A chain converges through its relay, a cut link reconnects, a wrong secret is refused")
        func chainReconnectAndRefusal() throws {
            let cluster = try TestCluster(["a", "b", "c"], peers: [0: [1], 2: [1]])
            defer { cluster.stop() }
            try cluster.nodes[0].perform { try $0.createGallery("g") }
            cluster.expectConvergence(timeout: .seconds(10), "chain")
            try cluster.nodes[2].perform { try $0.insert([.titled("from c")], into: "g", at: 0) }
            cluster.expectConvergence(timeout: .seconds(10), "chain")
            #expect(cluster.nodes[0].peers.map(\.name) == ["b"])

            // Cut a-b: a's dialer reconnects with backoff and the ops made meanwhile flow.
            cluster.nodes[1].disconnect(cluster.nodes[0].read { $0.id })
            try cluster.nodes[0].perform { try $0.insert([.titled("after the cut")], into: "g", at: 0) }
            cluster.expectConvergence(timeout: .seconds(10), "after a cut")
            #expect(cluster.view(0) == cluster.view(2))
            #expect(cluster.logged("disconnected by request").count >= 1)

            // A node with another secret gets nothing in.
            let configuration = NodeConfiguration(
                name: "mallory", secret: Array("not the secret".utf8), listen: nil, heartbeatInterval: .milliseconds(100),
                peerTimeout: .seconds(3), reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)),
                log: NodeLog { line in cluster.lines.append(line) })
            let mallory = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: "mallory")))
            try mallory.start()
            defer { mallory.stop() }
            try mallory.perform { try $0.createGallery("intruder") }
            mallory.keepConnected(to: cluster.nodes[1].endpoint!)
            let deadline = ContinuousClock.now + .seconds(10)
            while cluster.logged("auth_failed").count < 2 && ContinuousClock.now < deadline {
                _ = cluster.nodes[1].wait(timeout: .milliseconds(50)) { _ in false }
            }
            #expect(cluster.logged("auth_failed").count >= 2)
            #expect(cluster.nodes[1].read { $0.galleries } == ["g"])
        }
    }
}

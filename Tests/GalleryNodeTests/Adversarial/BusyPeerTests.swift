import Foundation
import GalleryModel
import GalleryNode
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("A peer that sends frames all the time is never dropped for silence")
    func busyPeerIsNotTimedOut() throws {
        let lines = LogLines()
        let log = NodeLog { line in lines.append(line) }
        // Heartbeats every millisecond: frames flow both ways all the time; liveness ticks every 0.1 ms.
        func node(_ name: String) -> SyncNode {
            SyncNode(
                configuration: NodeConfiguration(
                    name: name, secret: TestCluster.secret, heartbeatInterval: .milliseconds(1), peerTimeout: .seconds(5),
                    reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)), log: log),
                replica: Replica(id: ReplicaID(deriving: name)))
        }
        let a = node("alpha")
        let b = node("beta")
        let endpoint = try #require(try a.start())
        try b.start()
        defer {
            b.stop()
            a.stop()
        }
        b.keepConnected(to: endpoint)
        try #require(Self.waitUntil(.seconds(10)) { a.peers.first?.state == .live && b.peers.first?.state == .live })
        Thread.sleep(forTimeInterval: 2)
        let timeouts = lines.all.filter { $0.contains("timeout") }
        print("AdversarialPeer: busy peers for 2 s: \(timeouts.count) spurious timeouts \(timeouts.prefix(2))")
        #expect(timeouts.isEmpty, "\(timeouts)")
    }
}

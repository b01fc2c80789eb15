import Foundation
import GalleryModel
import GalleryNode
import Synchronization
import Testing

extension NodeSuites.AdversarialPeerTests {
    @Test("A good peer joining a node whose history exceeds the outbound queue limit still catches up")
    func catchUpLargerThanQueueLimit() throws {
        let lines = LogLines()
        let log = NodeLog { line in lines.append(line) }
        func configuration(_ name: String, queueLimit: Int) -> NodeConfiguration {
            NodeConfiguration(
                name: name, secret: TestCluster.secret, heartbeatInterval: .milliseconds(100), peerTimeout: .seconds(5),
                reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)), outboundQueueLimit: queueLimit,
                catchUpBatchBytes: 16 << 10, log: log)
        }
        let a = SyncNode(configuration: configuration("alpha", queueLimit: 64 << 10), replica: Replica(id: ReplicaID(deriving: "alpha")))
        let b = SyncNode(configuration: configuration("beta", queueLimit: 64 << 20), replica: Replica(id: ReplicaID(deriving: "beta")))
        let endpoint = try #require(try a.start())
        defer {
            b.stop()
            a.stop()
        }
        // About 200 KiB of history: three times the queue limit.
        let title = String(repeating: "t", count: 1_000)
        try a.perform { replica in
            try replica.createGallery("g")
            for index in 0..<200 { try replica.insert([.titled("\(index) \(title)")], into: "g", at: index) }
        }
        let history = a.read { $0.encodedLogSize }
        try b.start()
        b.keepConnected(to: endpoint)
        let target = a.read { $0.version }
        let caughtUp = b.wait(timeout: .seconds(5)) { $0.version.includes(target) }
        let drops = lines.all.filter { $0.contains("slow_peer") }
        print("AdversarialPeer: catch-up of \(history >> 10) KiB through a 64 KiB queue: caught up \(caughtUp), "
            + "\(drops.count) slow_peer drops, e.g. \(drops.first ?? "-")")
        #expect(caughtUp, "B never caught up with A's \(history) bytes of history; \(drops.count) slow_peer drops")
        #expect(drops.isEmpty)
    }

    /// Found when B was dropped during the attacks with "timeout: no frame for 18446744073709 ms":
    /// the liveness loop reads the clock once per pass, and `Connection.tick` computes
    /// `now &- lastReceived`; a frame received after `now` was read makes that wrap around.
}

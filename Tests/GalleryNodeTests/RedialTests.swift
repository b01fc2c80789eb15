import Foundation
import GalleryModel
import GalleryNode
import Testing

extension NodeSuites {
    /// Redial from both sides and duplicate resolution (protocol.md, sections 4 and 10.1), on
    /// in-process nodes over real TCP, in both I/O modes.
    @Suite("Redial from both sides")
    struct RedialTests {
        /// Checks `condition` every 10 ms (it looks at two nodes: neither one's changes alone can
        /// wake the wait) until it holds or `timeout` passes.
        static func poll(_ timeout: Duration, _ condition: () -> Bool) -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if condition() { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return condition()
        }

        @Test("A node that only accepted redials its peer itself once the peer stops dialing (forget)")
        func acceptorRedials() throws {
            let cluster = try TestCluster(["a", "b"], peers: [1: [0]])
            defer { cluster.stop() }
            let (a, b) = (cluster.nodes[0], cluster.nodes[1])
            #expect(a.waitForPeers(timeout: .seconds(10)) { $0.contains { $0.name == "b" && $0.direction == "inbound" && $0.state == .live } })
            // a learned where b listens from b's announcement.
            let announced = a.waitForPeers(timeout: .seconds(10)) { _ in
                a.knownPeers.contains { $0.name == "b" && $0.addresses.contains { $0.address == b.endpoint?.description } }
            }
            #expect(announced, "\(a.knownPeers)")
            #expect(b.forget("a"))
            #expect(!b.forget("a"), "forgotten already")
            #expect(b.knownPeers.isEmpty)
            a.disconnect(b.read { $0.id })
            // Only a can dial now: it does, to b's announced address.
            let redialed = a.waitForPeers(timeout: .seconds(10)) { $0.contains { $0.name == "b" && $0.direction == "outbound" && $0.state == .live } }
            #expect(redialed, "\(a.peers) \(cluster.lines.all.suffix(20))")
        }

        @Test("Two nodes that dial each other keep one connection, the same on both sides, after every cut")
        func duplicatesResolved() throws {
            let cluster = try TestCluster(["a", "b"], peers: [0: [1], 1: [0]])
            defer { cluster.stop() }
            let (a, b) = (cluster.nodes[0], cluster.nodes[1])
            for round in 0..<4 {
                if round > 0 { (round % 2 == 0 ? a : b).disconnect((round % 2 == 0 ? b : a).read { $0.id }) }
                let settled = Self.poll(.seconds(10)) {
                    let (fromA, fromB) = (a.peers, b.peers)
                    return fromA.count == 1 && fromB.count == 1 && fromA[0].state == .live && fromB[0].state == .live
                        && fromA[0].direction != fromB[0].direction
                }
                #expect(settled, "round \(round): a \(a.peers), b \(b.peers)")
            }
            try a.perform { try $0.createGallery("after the cuts") }
            cluster.expectConvergence(timeout: .seconds(10))
        }
    }
}

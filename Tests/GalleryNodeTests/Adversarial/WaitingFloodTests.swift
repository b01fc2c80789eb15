import Foundation
import GalleryModel
import GalleryNode
import GalleryTestSupport
import GalleryWire
import Testing

extension NodeSuites {
    /// A member that floods a node with ops whose dependency never comes (protocol.md, section 6,
    /// "Each peer has its share"), over loopback with raw peers.
    @Suite("Waiting-op flood")
    struct WaitingFloodTests {
        /// The ops of a replica named `name` that creates a gallery and inserts `count` items: each
        /// op but the first waits for the one before it.
        static func chain(_ name: String, count: Int) throws -> [Op] {
            var replica = Replica(id: ReplicaID(deriving: name))
            try replica.createGallery(name)
            for index in 0..<count { try replica.insert([.titled("\(name) \(index)")], into: name, at: 0) }
            return replica.ops
        }

        /// Polls until `predicate` holds for the node's replica: ops that only wait change
        /// nothing a `wait` is woken for.
        static func poll(_ node: SyncNode, timeout: Duration = .seconds(20), until predicate: (Replica) -> Bool) -> Bool {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if node.read(predicate) { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return node.read(predicate)
        }

        @Test("A flooder past its share is closed and its waiting ops freed; an honest peer's waiting ops are kept and applied")
        func flooderIsCutOffAndHonestPeerIsNot() throws {
            // The raw peers send no heartbeats: a silence limit longer than the test.
            let cluster = try TestCluster(["node"], peerTimeout: .seconds(120))
            defer { cluster.stop() }
            let node = cluster.nodes[0]
            let endpoint = try #require(node.endpoint)
            let share = BufferLimits.standard.opsPerSource
            let flood = try Self.chain("flood", count: share + 1)
            let honestOps = try Self.chain("honest", count: 5)

            // The honest peer's ops wait for its second op, lost on the way (a gap).
            var honest = try RawPeer(connectingTo: endpoint, secret: TestCluster.secret)
            honest.send(.ops([honestOps[0]] + Array(honestOps[2...4])))
            #expect(Self.poll(node) { $0.bufferedCount == 3 })

            // The flooder never sends its first op: each of its ops waits. Its whole share is held.
            var flooder = try RawPeer(connectingTo: endpoint, secret: TestCluster.secret)
            var sent = 1
            while sent < share + 1 {
                let end = min(sent + 200, share + 1)
                flooder.send(.ops(Array(flood[sent..<end])))
                sent = end
            }
            #expect(Self.poll(node) { $0.bufferedCount == 3 + share },
                    "\(node.read { $0.bufferedCount }) waiting; \(cluster.lines.all.suffix(5))")

            // With the flooder at its share, the honest peer's next early op is still taken.
            honest.send(.ops([honestOps[5]]))
            #expect(Self.poll(node) { $0.bufferedCount == 4 + share })

            // One op past its share: the flooder is closed, and every op it left waiting goes.
            flooder.send(.ops([flood[share + 1]]))
            let error = try flooder.receiveError()
            #expect(error?.0 == .internalError, "\(String(describing: error))")
            #expect(Self.poll(node) { $0.bufferedCount == 4 })
            #expect(node.read { replica in flood.allSatisfy { !replica.heldOpIDs.contains($0.id) } })
            #expect(node.read { !$0.missingDependencies.contains(flood[0].id) })

            // The honest peer fills its gap: everything it sent applies, in order.
            honest.send(.ops([honestOps[1]]))
            #expect(node.wait(timeout: .seconds(10)) { replica in
                replica.bufferedCount == 0 && honestOps.allSatisfy { replica.contains($0.id) }
            })
            #expect(try node.read { try $0.items(in: "honest").map(\.title) } == (0..<5).reversed().map { "honest \($0)" })
            #expect(node.read { !$0.contains(flood[1].id) })
            #expect(node.waitForPeers(timeout: .seconds(10)) { $0.count == 1 }, "the honest peer stays connected")
        }
    }
}

import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import Testing

extension NodeSuites {
    /// Node keys as a node sees its peers: node IDs on `PeerStatus`, name conflicts reported.
    @Suite("Peer identity")
    struct PeerIdentityTests {
        static let secret = Array("identity".utf8)

        static func node(_ name: String, replica: String, peers: [Endpoint] = [], log: NodeLog = .silent) -> SyncNode {
            SyncNode(configuration: NodeConfiguration(name: name, secret: secret, peers: peers, log: log),
                     replica: Replica(id: ReplicaID(deriving: replica)))
        }

        @Test("Two nodes under one name with different keys are kept apart and reported, not merged")
        func nameConflict() throws {
            let lines = LogLines()
            let hub = Self.node("hub", replica: "hub", log: NodeLog { lines.append($0) })
            let hubEndpoint = try #require(try hub.start())
            defer { hub.stop() }
            let first = Self.node("twin", replica: "twin-1", peers: [hubEndpoint])
            try first.start()
            defer { first.stop() }
            #expect(hub.waitForPeers(timeout: .seconds(10)) { $0.count == 1 && $0.first?.state == .live })
            #expect(hub.peers.first?.nodeID == first.nodeID)
            let second = Self.node("twin", replica: "twin-2", peers: [hubEndpoint])
            try second.start()
            defer { second.stop() }
            #expect(hub.waitForPeers(timeout: .seconds(10)) { $0.count == 2 && $0.allSatisfy { $0.state == .live } })
            #expect(Set(hub.peers.compactMap(\.nodeID)) == [first.nodeID, second.nodeID])
            let conflicts = hub.health.identityConflicts ?? []
            #expect(conflicts.count == 1 && conflicts[0].contains("node \(second.nodeID) calls itself twin"), "\(conflicts)")
            #expect(lines.all.contains { $0.contains("IDENTITY CONFLICT") })
        }
    }
}

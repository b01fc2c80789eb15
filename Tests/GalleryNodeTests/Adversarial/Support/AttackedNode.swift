import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import Testing

/// Node A under attack from raw TCP clients, with its good peer B (`TestCluster`, B dials A), and
/// what every attack is checked against: A's replica does not change, B still exchanges ops with A
/// afterwards, and B stays A's only peer, live the whole time.
final class AttackedNode {
    /// A and B.
    let cluster: TestCluster
    /// The node under attack.
    let a: SyncNode
    /// Its good peer.
    let b: SyncNode
    /// Where A listens.
    let endpoint: Endpoint
    /// A's replica ID.
    let aID: ReplicaID
    /// Bad connections A survived so far.
    var survived = 0
    /// How long each attack took, printed at the end.
    var timings: [String] = []
    /// Rounds of ops exchanged between A and B after attacks.
    private var round = 0

    /// Starts A and B, creates gallery "g" and waits until B is A's live peer and both converged.
    init() throws {
        let cluster = try TestCluster(["alpha", "beta"], peers: [1: [0]])
        do {
            let a = cluster.nodes[0]
            let b = cluster.nodes[1]
            endpoint = try #require(a.endpoint)
            aID = a.read { $0.id }
            try a.perform { try $0.createGallery("g") }
            try #require(cluster.waitForConvergence(timeout: .seconds(10)))
            try b.perform { try $0.insert([.titled("from beta")], into: "g", at: 0) }
            try #require(cluster.waitForConvergence(timeout: .seconds(10)))
            try #require(NodeSuites.AdversarialPeerTests.waitUntil(.seconds(10)) {
                a.peers.contains { $0.name == "beta" && $0.state == .live }
            })
            self.cluster = cluster
            self.a = a
            self.b = b
        } catch {
            cluster.stop()
            throw error
        }
    }

    /// Runs one attack: A's replica must not change, and B must still exchange ops with A afterwards.
    func attack(_ label: String, _ body: () throws -> Void) rethrows {
        let before = a.read { $0.version }
        let started = ContinuousClock.now
        try body()
        timings.append("\(label): \(ContinuousClock.now - started)")
        #expect(a.read { $0.version } == before, "\(label): A's replica changed")
        survived += 1
        expectServing(label)
    }

    /// B and A still exchange ops in both directions, and converge.
    func expectServing(_ label: String) {
        round += 1
        NodeSuites.AdversarialPeerTests.expectServing(cluster, label: label, round: round)
    }

    /// A's peers: only B, live, the whole time; prints what A survived.
    func expectOnlyGoodPeer(_ test: String) {
        #expect(NodeSuites.AdversarialPeerTests.waitUntil(.seconds(5)) { a.peers.map(\.name) == ["beta"] }, "\(a.peers)")
        #expect(cluster.logged("alpha: connection to beta closed").isEmpty)
        print("AdversarialPeer \(test): A survived \(survived) bad connections")
        for line in timings { print("AdversarialPeer \(test): \(line)") }
    }

    /// Stops A and B.
    func stop() {
        cluster.stop()
    }
}

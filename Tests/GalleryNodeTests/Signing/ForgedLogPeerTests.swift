import Foundation
import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

extension NodeSuites {
    /// A node whose own files hold a forged op serves catch-ups over TCP on 127.0.0.1 (protocol.md
    /// 7.3, "Sending"): its peers refuse the forged op and get every honest op before it, of its
    /// author and of another author sent with them, and pass them on; the node logs once.
    @Suite("A forged log served to peers")
    struct ForgedLogPeerTests {
        @Test("Lambda's log holds Alice's op 11 forged among Carol's ops: Beta gets Alice's 0-10 and all of Carol's over several connections, Gamma gets them from Beta, Lambda logs it once")
        func forgedLogServedAndRelayed() throws {
            let alice = SignedReplicaFixture(seed: 1), carol = SignedReplicaFixture(seed: 3)
            let genuine = try ForgedLogCatchUpTests.chain(of: alice, gallery: "a", count: 20)
            let carols = try ForgedLogCatchUpTests.chain(of: carol, gallery: "c", count: 20)
            let held = ForgedLogCatchUpTests.interleaved(ForgedLogCatchUpTests.forging(genuine, at: 11), carols)
            // Lambda takes its own files as they are; small batches, so that a refused batch holds
            // few of Carol's ops and the rest come over later connections.
            let key = X25519.PrivateKey()
            let lambdaLines = LogLines()
            var configuration = NodeConfiguration(name: "lambda", secret: TestCluster.secret, staticKey: key,
                                                  catchUpBatchBytes: 512, log: NodeLog { lambdaLines.append($0) })
            configuration.replicaSalt = 5
            var restored = Replica(id: ReplicaBinding(secret: TestCluster.secret, nodeKey: key).replicaID(salt: 5))
            for op in held { restored.receive(op) }
            let lambda = SyncNode(configuration: configuration, replica: restored)
            try lambda.start()
            defer { lambda.stop() }
            // Gamma (1) dials Beta (0) only; Beta dials Lambda.
            let cluster = try AdversarialPeerTests.signedCluster(["beta", "gamma"], peers: [1: [0]])
            defer { cluster.stop() }
            let (beta, gamma) = (cluster.nodes[0], cluster.nodes[1])
            beta.keepConnected(to: try #require(lambda.endpoint))

            let honest = VersionVector([alice.replica.id: genuine[10].lastCounter, carol.replica.id: try #require(carols.last).lastCounter])
            #expect(beta.wait(timeout: .seconds(60)) { $0.version.includes(honest) }, "\(cluster.lines.all.suffix(20))")
            #expect(gamma.wait(timeout: .seconds(60)) { $0.version.includes(honest) })
            #expect(AdversarialPeerTests.waitUntil(.seconds(30)) { cluster.logged("FORGED OP \(genuine[11].id)").count >= 3 },
                    "Beta redials Lambda and refuses the forged op again")
            for node in [beta, gamma] {
                #expect(node.read { $0.version[alice.replica.id] } == genuine[10].lastCounter)
                #expect(node.read { $0.chain(of: alice.replica.id).map(\.unsealed) } == genuine[...10].map(\.unsealed))
            }
            let reports = lambdaLines.all.filter { $0.contains("SIGNATURES DO NOT COVER") }
            #expect(reports.count == 1, "once per peer and replica: \(reports)")
            #expect(reports.first?.contains("\(alice.replica.id)") == true)
            #expect(cluster.logged("SIGNATURES DO NOT COVER").isEmpty, "Beta's log is sound: \(cluster.logged("SIGNATURES"))")
        }
    }
}

import Foundation
import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

extension NodeSuites.AdversarialPeerTests {
    /// Nodes that sign their ops, over TCP on 127.0.0.1 (`TestCluster` with a salt per node).
    static func signedCluster(_ names: [String], peers: [Int: [Int]] = [:]) throws -> TestCluster {
        try TestCluster(names, peers: peers) { index, configuration in configuration.replicaSalt = UInt64(index + 1) }
    }

    /// An op under `replica` that follows its chain as `node` holds it, signed by another key.
    static func forgedUpdate(of item: OpID, under replica: ReplicaID, on node: SyncNode, counter: UInt64,
                             previousOffset: UInt64 = 0) -> Op {
        let chain = node.read { $0.chain(of: replica) }
        var op = Op(id: OpID(counter: counter, replica: replica), previous: (chain.last?.lastCounter ?? 0) + previousOffset,
                    action: .update(item: item, field: .title, value: .text("forged")))
        let space = OpSigning.spaceID(ofSecret: TestCluster.secret)
        var hash: [UInt8] = []
        for (index, applied) in chain.enumerated() {
            if index == 0, let claim = applied.seal?.keyClaim {
                hash = OpSigning.genesis(space: space, replica: replica, publicKey: claim.publicKey)
            }
            hash = OpSigning.chain(hash, applied)
        }
        let mallory = Ed25519.PrivateKey()
        op.seal = OpSeal(signature: mallory.signature(for: OpSigning.message(op.id, chain: OpSigning.chain(hash, op))))
        return op
    }

    @Test("A member's op forged under another member's replica is refused live with forged_op, and never relayed")
    func forgedLive() throws {
        // A <- B <- C: B relays between them.
        let cluster = try Self.signedCluster(["alpha", "beta", "gamma"], peers: [1: [0], 2: [1]])
        defer { cluster.stop() }
        let a = cluster.nodes[0], b = cluster.nodes[1], c = cluster.nodes[2]
        try a.perform { try $0.createGallery("g") }
        try a.perform { _ = try $0.insert([.titled("real")], into: "g", at: 0) }
        try #require(cluster.waitForConvergence(timeout: .seconds(20)))
        let aID = a.read { $0.id }
        let item = try a.read { try $0.item(at: 0, in: "g").id }
        let forged = Self.forgedUpdate(of: item, under: aID, on: b, counter: 100)
        let endpoint = try #require(b.endpoint)
        let talk = try Self.converse("forged live", endpoint) { peer in
            guard peer.authenticate(Self.settings("mallory", replica: ReplicaID(0xBAD))) else { return }
            _ = peer.send(.ops([forged]))
        }
        #expect(Self.errorCode(talk.frames.last) == .forgedOp, "\(Self.describe(talk.frames))")
        #expect(!cluster.logged("FORGED OP \(forged.id)").isEmpty)
        // A's real ops still flow through B to C; the forgery reached neither.
        try a.perform { _ = try $0.insert([.titled("after")], into: "g", at: 1) }
        try #require(cluster.waitForConvergence(timeout: .seconds(20)))
        for node in [a, b, c] { #expect(try node.read { try $0.item(at: 0, in: "g").title } == "real") }
    }

    @Test("A forged op that waits for its predecessor is refused when the predecessor arrives by relay; the sender is closed")
    func forgedWaitingThenRelayed() throws {
        let cluster = try Self.signedCluster(["alpha", "beta"], peers: [1: [0]])
        defer { cluster.stop() }
        let a = cluster.nodes[0], b = cluster.nodes[1]
        try a.perform { try $0.createGallery("g") }
        try a.perform { _ = try $0.insert([.titled("real")], into: "g", at: 0) }
        try #require(cluster.waitForConvergence(timeout: .seconds(20)))
        let aID = a.read { $0.id }
        let item = try a.read { try $0.item(at: 0, in: "g").id }
        let before = a.read { $0.lamportClock }
        // Mallory sends an op that follows A's next op (not made yet): B holds it.
        var forged = Self.forgedUpdate(of: item, under: aID, on: b, counter: before + 2)
        forged.previous = before + 1
        let endpoint = try #require(b.endpoint)
        let mallory = try #require(try AdversaryClient.authenticated(
            to: endpoint, secret: TestCluster.secret, replica: ReplicaID(0xBAD), name: "mallory", deadline: .seconds(10)))
        _ = mallory.send(.ops([forged]))
        try #require(Self.waitUntil(.seconds(10)) { b.read { $0.bufferedCount } == 1 })
        // A's next op arrives at B from A: the held op is released, checked, refused.
        try a.perform { _ = try $0.update(item, .url, to: .text("https://example.com/x")) }
        let frames = mallory.readToEnd()
        #expect(Self.errorCode(frames.last) == .forgedOp, "\(Self.describe(frames))")
        #expect(try b.read { try $0.item(at: 0, in: "g").title } == "real")
        try #require(cluster.waitForConvergence(timeout: .seconds(20)))
    }

    @Test("A forged op in a peer's log is refused when that peer sends it in a catch-up")
    func forgedInCatchUpFromALog() throws {
        let source = try Self.signedCluster(["alpha"])
        let a = source.nodes[0]
        try a.perform { try $0.createGallery("g") }
        try a.perform { _ = try $0.insert([.titled("real")], into: "g", at: 0) }
        let aID = a.read { $0.id }
        let item = try a.read { try $0.item(at: 0, in: "g").id }
        let forged = Self.forgedUpdate(of: item, under: aID, on: a, counter: 100)
        var logged = a.read { $0 }
        source.stop()
        // Lambda's files hold A's ops and the forgery (as if its log had been edited): it takes
        // its own files as they are.
        let key = X25519.PrivateKey()
        var configuration = NodeConfiguration(name: "lambda", secret: TestCluster.secret, staticKey: key)
        configuration.replicaSalt = 5
        var restored = Replica(id: ReplicaBinding(secret: TestCluster.secret, nodeKey: key).replicaID(salt: 5))
        logged.authenticator = nil
        for op in logged.ops + [forged] { restored.receive(op) }
        #expect(try restored.item(at: 0, in: "g").title == "forged")
        let lambda = SyncNode(configuration: configuration, replica: restored)
        try lambda.start()
        defer { lambda.stop() }
        let fresh = try Self.signedCluster(["beta"])
        defer { fresh.stop() }
        let b = fresh.nodes[0]
        b.keepConnected(to: try #require(lambda.endpoint))
        #expect(fresh.waitUntilLogged("FORGED OP \(forged.id)", timeout: .seconds(20)))
        // B took A's real ops from the same catch-up (they came before the forgery), not the forgery.
        #expect(b.read { $0.opCount } <= 3)
        #expect(b.read { (try? $0.item(at: 0, in: "g").title) ?? "real" } == "real")
    }
}

extension TestCluster {
    /// Waits until some node logged a line containing `text`.
    func waitUntilLogged(_ text: String, timeout: Duration) -> Bool {
        NodeSuites.AdversarialPeerTests.waitUntil(timeout) { !logged(text).isEmpty }
    }
}

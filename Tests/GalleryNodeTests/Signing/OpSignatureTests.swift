import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

/// Signed ops checked by the model and `OpSignatures`, without sockets (protocol.md, "Signed ops").
@Suite("Signed ops")
struct OpSignatureTests {
    /// Alice makes a gallery and `count` single-item inserts; returns her ops as sent.
    static func aliceOps(_ alice: inout SignedReplicaFixture, count: Int) throws -> [Op] {
        var ops = [try alice.replica.createGallery("g")]
        for index in 0..<count { ops.append(try alice.replica.insert([.titled("i\(index)")], into: "g", at: index)) }
        return ops
    }

    @Test("Every op a signing replica makes is sealed; its first claims the key its replica ID is bound to")
    func ownOpsAreSealed() throws {
        var alice = SignedReplicaFixture(seed: 1)
        let ops = try Self.aliceOps(&alice, count: 3)
        #expect(ops.allSatisfy { $0.seal?.signature?.count == 64 })
        let claim = try #require(ops[0].seal?.keyClaim)
        #expect(ops.dropFirst().allSatisfy { $0.seal?.keyClaim == nil })
        let space = OpSigning.spaceID(ofSecret: SignedReplicaFixture.secret)
        #expect(OpSigning.replicaID(space: space, publicKey: claim.publicKey, salt: claim.salt) == alice.replica.id)
        // The log keeps the seals: a catch-up sends them as made.
        #expect(alice.replica.ops == ops)
    }

    @Test("A frame of a replica's ops costs one signature check; the others' signatures are dropped, not stored")
    func oneCheckPerFrame() throws {
        var alice = SignedReplicaFixture(seed: 1)
        var bob = SignedReplicaFixture(seed: 2)
        let ops = try Self.aliceOps(&alice, count: 50)
        let result = bob.receive(ops)
        #expect(result.forged == nil)
        #expect(result.outcomes.allSatisfy { if case .applied = $0 { true } else { false } })
        #expect(bob.signatures.verifications == 1)
        let stored = bob.replica.chain(of: alice.replica.id)
        #expect(stored.count == 51)
        #expect(stored.dropLast().allSatisfy { $0.seal?.signature == nil })
        #expect(stored.last?.seal?.signature != nil)
        #expect(stored.first?.seal?.keyClaim != nil)
        // Carol, caught up from Bob's log (one signature per replica), accepts it too.
        var carol = SignedReplicaFixture(seed: 3)
        #expect(carol.receive(bob.replica.ops).forged == nil)
        #expect(carol.replica.version == bob.replica.version)
    }

    @Test("An op made by another member under Alice's replica ID is refused as forged")
    func forgedUnderAnotherReplica() throws {
        var alice = SignedReplicaFixture(seed: 1)
        var bob = SignedReplicaFixture(seed: 2)
        let ops = try Self.aliceOps(&alice, count: 2)
        #expect(bob.receive(ops).forged == nil)
        // Mallory signs the next op of Alice's chain with her own key.
        let mallory = SignedReplicaFixture(seed: 9)
        var forged = Op(id: OpID(counter: 10, replica: alice.replica.id), previous: ops.last!.lastCounter,
                        action: .update(item: ops[1].id, field: .title, value: .text("forged")))
        let chain = OpSigning.chain(bob.signatures.heads[alice.replica.id]!.hash, forged)
        forged.seal = OpSeal(signature: mallory.nodeKeySigning(OpSigning.message(forged.id, chain: chain)))
        let result = bob.receive([forged])
        #expect(result.forged?.contains("signature") == true)
        #expect(bob.replica.item(ops[1].id)?.title == "i0")
        // Unsigned, it waits for a signature that never comes: never applied.
        forged.seal = nil
        #expect(bob.receive([forged], from: 2).forged == nil)
        #expect(bob.replica.item(ops[1].id)?.title == "i0")
    }

    @Test("A replica ID that is not bound to the key its first op claims is refused, as is an op replayed from another space")
    func claimsAreBound() throws {
        var alice = SignedReplicaFixture(seed: 1)
        let ops = try Self.aliceOps(&alice, count: 1)
        // The same node key in another space: another replica ID, refused here.
        var elsewhere = SignedReplicaFixture(seed: 1, secret: Array("another space".utf8))
        let replayed = try Self.aliceOps(&elsewhere, count: 1)
        var bob = SignedReplicaFixture(seed: 2)
        let result = bob.receive(replayed)
        #expect(result.forged?.contains("not the replica of the key it claims in this space") == true)
        #expect(result.outcomes.isEmpty)
        #expect(bob.receive(ops, from: 2).forged == nil)
        // Alice's first op with Mallory's key claimed: refused.
        var stolen = ops[0]
        stolen.seal?.keyClaim?.publicKey = SignedReplicaFixture(seed: 9).signatures.signingKey.publicKey.rawRepresentation
        var carol = SignedReplicaFixture(seed: 3)
        #expect(carol.receive([stolen]).forged != nil)
    }

    @Test("One flipped bit of a signature, or of the op it covers, is refused")
    func mutatedSignature() throws {
        var alice = SignedReplicaFixture(seed: 1)
        let ops = try Self.aliceOps(&alice, count: 3)
        var flipped = ops
        flipped[3].seal?.signature?[10] ^= 0x01
        // The ops before it are its author's (their own signatures hold): they are applied.
        var bob = SignedReplicaFixture(seed: 2)
        #expect(bob.receive(flipped).forged?.contains("signature") == true)
        #expect(bob.replica.opCount == 3)
        var carol = SignedReplicaFixture(seed: 3)
        var changed = ops
        changed[2].action = .insert(gallery: "g", after: nil, before: nil, items: [.titled("changed")])
        #expect(carol.receive(changed).forged != nil)
        #expect(carol.replica.opCount == 2)
        #expect(carol.receive(ops, from: 2).forged == nil)
        #expect(carol.replica.opCount == 4)
        #expect(carol.replica.item(ops[3].id)?.title == "i2")
    }

    @Test("A run that arrives before its predecessor is checked when the predecessor arrives; a forged one is then refused")
    func runsWaitingForTheirPredecessor() throws {
        var alice = SignedReplicaFixture(seed: 1)
        let ops = try Self.aliceOps(&alice, count: 6)
        var bob = SignedReplicaFixture(seed: 2)
        // Ops 4...6 first, from connection 1; then 0...3 from connection 2.
        #expect(bob.receive(Array(ops[4...]), from: 1).forged == nil)
        #expect(bob.replica.opCount == 0)
        #expect(bob.receive(Array(ops[..<4]), from: 2).forged == nil)
        #expect(bob.replica.opCount == 7)
        // Again with the late run forged: its ops are refused when released, and reported.
        var carol = SignedReplicaFixture(seed: 3)
        var late = Array(ops[4...])
        late[0].action = .insert(gallery: "g", after: nil, before: nil, items: [.titled("forged")])
        #expect(carol.receive(late, from: 1).forged == nil)
        #expect(carol.receive(Array(ops[..<4]), from: 2).forged == nil)
        #expect(carol.replica.opCount == 4)
        let reported = carol.replica.takeForgedHeldOps()
        #expect(reported.map(\.sources) == [[1]])
    }

    @Test("Ops after the last signature of a frame wait for the frame that brings it")
    func unsignedTailWaits() throws {
        var alice = SignedReplicaFixture(seed: 1)
        var bob = SignedReplicaFixture(seed: 2)
        #expect(bob.receive(try Self.aliceOps(&alice, count: 4)).forged == nil)
        // Bob's log keeps only the last signature: Carol gets it in two frames cut before it.
        let stored = bob.replica.ops
        var carol = SignedReplicaFixture(seed: 3)
        #expect(carol.receive(Array(stored[..<3])).forged == nil)
        #expect(carol.replica.opCount == 0)
        #expect(carol.receive(Array(stored[3...])).forged == nil)
        #expect(carol.replica.opCount == 5)
    }

    @Test("Ops of a replica that signs nothing (made before signed ops) are kept from the node's own log, refused from peers")
    func unsignedReplicaFromPeers() throws {
        var legacy = Replica(id: ReplicaID(0x1234))
        let old = [try legacy.createGallery("old"), try legacy.insert([.titled("kept")], into: "old", at: 0)]
        var bob = SignedReplicaFixture(seed: 2)
        // From its own files (no source): applied.
        for op in old { bob.replica.receive(op) }
        #expect(bob.replica.opCount == 2)
        var next = legacy
        let more = try next.insert([.titled("later")], into: "old", at: 1)
        var carol = SignedReplicaFixture(seed: 3)
        #expect(carol.receive(old).forged?.contains("claims no key") == true)
        #expect(bob.receive([more]).forged?.contains("signs nothing") == true)
        #expect(bob.replica.opCount == 2)
        #expect(carol.replica.opCount == 0)
    }
}

extension SignedReplicaFixture {
    /// A signature by this fixture's signing key.
    func nodeKeySigning(_ message: [UInt8]) -> [UInt8] {
        OpSigning.signingKey(fromNodeKey: nodeKey).signature(for: message)
    }
}

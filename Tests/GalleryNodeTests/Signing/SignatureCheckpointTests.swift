import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

/// What a catch-up carries of a log's signatures, and what a receiver keeps (protocol.md, "Signed
/// ops", "Checkpoints" and "Sending"): one signature per replica and batch, plus checkpoints, so
/// that a relay's log serves a catch-up from any point. No sockets.
@Suite("Signature checkpoints")
struct SignatureCheckpointTests {
    /// Alice's chain as a log holds it: a gallery, then `count` single-item inserts, made unsigned
    /// and then sealed the way a relay keeps them: the key claim on the first op, a signature of
    /// Alice's key on the ops of `signedAt` (indices), every checkpoint and the last.
    static func aliceChain(count: Int, signedAt: Set<Int> = [], alice: SignedReplicaFixture) throws -> [Op] {
        var plain = Replica(id: alice.replica.id)
        var ops = [try plain.createGallery("g")]
        for index in 0..<count { ops.append(try plain.insert([.titled("i\(index)")], into: "g", at: index)) }
        let space = OpSigning.spaceID(ofSecret: SignedReplicaFixture.secret)
        let key = OpSigning.signingKey(fromNodeKey: alice.nodeKey)
        var hash = OpSigning.genesis(space: space, replica: alice.replica.id, publicKey: key.publicKey.rawRepresentation)
        for index in ops.indices {
            hash = OpSigning.chain(hash, ops[index])
            var seal = OpSeal()
            if index == 0 { seal.keyClaim = OpSeal.KeyClaim(publicKey: key.publicKey.rawRepresentation, salt: alice.salt) }
            if index == 0 || index == ops.count - 1 || signedAt.contains(index) || ops[index].isSignatureCheckpoint {
                seal.signature = key.signature(for: OpSigning.message(ops[index].id, chain: hash))
            }
            ops[index].seal = seal.isEmpty ? nil : seal
        }
        return ops
    }

    /// The ops `replica` sends a peer at `version`, batch by batch of at most `maximumBytes`.
    static func catchUpBatches(from replica: Replica, to version: VersionVector, maximumBytes: Int) throws -> [[Op]] {
        var batches: [[Op]] = []
        var next = replica.firstLogPosition(missingFrom: version)
        while next < replica.opCount {
            let (batch, after) = replica.encodedBatch(
                missingFrom: version, from: next, below: replica.opCount, maximumBytes: maximumBytes, maximumScanned: 65_536)
            if let batch { batches.append(try OpCodec.decode(batch)) }
            next = after
        }
        return batches
    }

    @Test("Checkpoints: an op whose counters reach a new block of 4,096; any 4,096 consecutive ops hold one")
    func checkpointRule() {
        #expect(!Op.isSignatureCheckpoint(previous: 0, lastCounter: 4_095))
        #expect(Op.isSignatureCheckpoint(previous: 4_095, lastCounter: 4_096))
        #expect(Op.isSignatureCheckpoint(previous: 4_000, lastCounter: 9_000))
        #expect(!Op.isSignatureCheckpoint(previous: 4_096, lastCounter: 8_191))
        #expect(Op.isSignatureCheckpoint(previous: 8_191, lastCounter: .max))
    }

    @Test("A catch-up from the author's log carries its first op's seal, its checkpoints' and its last op's signature, no other")
    func authorsCatchUpCarriesFewSignatures() throws {
        var alice = SignedReplicaFixture(seed: 1)
        var ops = [try alice.replica.createGallery("g")]
        for index in 0..<4_200 { ops.append(try alice.replica.insert([.titled("i\(index)")], into: "g", at: index)) }
        // The author's own log holds every op's signature.
        #expect(alice.replica.chain(of: alice.replica.id).allSatisfy { $0.seal?.signature != nil })
        let batches = try Self.catchUpBatches(from: alice.replica, to: VersionVector(), maximumBytes: 1 << 20)
        #expect(batches.count == 1)
        let sent = try #require(batches.first)
        #expect(sent.map(\.unsealed) == ops.map(\.unsealed))
        let signed = sent.filter { $0.seal?.signature != nil }.map(\.id.counter)
        #expect(signed == [1, 4_096, 4_201])
        #expect(sent.first?.seal?.keyClaim != nil)
        // Bob checks the last signature and the checkpoint's, and keeps those two.
        var bob = SignedReplicaFixture(seed: 2)
        let result = bob.receive(sent)
        #expect(result.forged == nil)
        #expect(bob.replica.version == alice.replica.version)
        #expect(bob.signatures.verifications == 2)
        #expect(bob.replica.chain(of: alice.replica.id).filter { $0.seal?.signature != nil }.map(\.id.counter) == [4_096, 4_201])
    }

    @Test("A relay's log serves a catch-up that starts mid-run, in small batches: what waits for a signature stays under 4,096 ops")
    func relayServesCatchUpFromMidRun() throws {
        let alice = SignedReplicaFixture(seed: 1)
        // Carol got ops 0...2,000 live (op 2,000 signed); Bob got all 13,001 in one frame.
        let ops = try Self.aliceChain(count: 13_000, signedAt: [2_000], alice: alice)
        var bob = SignedReplicaFixture(seed: 2)
        #expect(bob.receive(ops).forged == nil)
        let kept = bob.replica.chain(of: alice.replica.id).filter { $0.seal?.signature != nil }.map(\.id.counter)
        #expect(kept == [4_096, 8_192, 12_288, 13_001])
        var carol = SignedReplicaFixture(seed: 3)
        #expect(carol.receive(Array(ops[...2_000])).forged == nil)
        // Bob's catch-up of Carol starts after op 2,000, where Bob holds no signature.
        let batches = try Self.catchUpBatches(from: bob.replica, to: carol.replica.version, maximumBytes: 16_384)
        #expect(batches.count > 10)
        for batch in batches {
            let result = carol.receive(batch)
            #expect(result.forged == nil)
            #expect((carol.signatures.tails[1]?.count ?? 0) < 4_096)
        }
        #expect(carol.replica.version == bob.replica.version)
        #expect(carol.signatures.tails[1] == nil)
    }

    @Test("A forged op at the end of a log is refused from a catch-up that left out the real ops' signatures")
    func forgedOpInCatchUp() throws {
        var alice = SignedReplicaFixture(seed: 1)
        var ops = [try alice.replica.createGallery("g")]
        for index in 0..<20 { ops.append(try alice.replica.insert([.titled("i\(index)")], into: "g", at: index)) }
        // Lambda's log: Alice's ops, then one of Mallory's under Alice's replica ID.
        var lambda = Replica(id: SignedReplicaFixture(seed: 5).replica.id)
        for op in ops { lambda.receive(op) }
        let mallory = Ed25519.PrivateKey()
        var forged = Op(id: OpID(counter: 100, replica: alice.replica.id), previous: ops.last!.lastCounter,
                        action: .update(item: ops[1].id, field: .title, value: .text("forged")))
        var hash = OpSigning.genesis(space: OpSigning.spaceID(ofSecret: SignedReplicaFixture.secret), replica: alice.replica.id,
                                     publicKey: try #require(ops[0].seal?.keyClaim?.publicKey))
        for op in ops + [forged] { hash = OpSigning.chain(hash, op) }
        forged.seal = OpSeal(signature: mallory.signature(for: OpSigning.message(forged.id, chain: hash)))
        lambda.receive(forged)
        let batch = try #require(try Self.catchUpBatches(from: lambda, to: VersionVector(), maximumBytes: 1 << 20).first)
        // Only the first op's seal and the forgery's signature are sent.
        #expect(batch.filter { $0.seal?.signature != nil }.map(\.id) == [ops[0].id, forged.id])
        var bob = SignedReplicaFixture(seed: 2)
        let result = bob.receive(batch)
        #expect(result.forged != nil)
        #expect(bob.replica.version[alice.replica.id] < forged.id.counter)
        #expect(bob.replica.item(ops[1].id)?.title != "forged")
    }

    @Test("One flipped bit in a checkpoint's signature, or in the last one, is refused although the other holds")
    func mutatedCheckpointSignature() throws {
        let alice = SignedReplicaFixture(seed: 1)
        let ops = try Self.aliceChain(count: 4_200, alice: alice)
        let checkpoint = try #require(ops.firstIndex { $0.id.counter == 4_096 })
        for index in [checkpoint, ops.count - 1] {
            var mutated = ops
            mutated[index].seal?.signature?[17] ^= 0x10
            var bob = SignedReplicaFixture(seed: 2)
            let result = bob.receive(mutated)
            #expect(result.forged != nil, "a flipped bit in op \(index)'s signature")
            #expect(bob.replica.version[alice.replica.id] < ops.last!.id.counter)
        }
        var bob = SignedReplicaFixture(seed: 2)
        #expect(bob.receive(ops).forged == nil)
    }
}

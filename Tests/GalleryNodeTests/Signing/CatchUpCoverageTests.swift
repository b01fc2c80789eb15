import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

/// The sender's check of a catch-up batch (`OpSignatures.signatureCovers`): a batch leaves out the
/// signatures its last op's covers only when that signature holds over the sender's own log. No
/// sockets.
@Suite("Catch-up signature coverage")
struct CatchUpCoverageTests {
    /// Alice's chain (a gallery, then `count` inserts) with every op signed by her key, and the
    /// same chain with op `forgedAt` made again with another title under the same ID, keeping the
    /// genuine op's seal.
    static func chains(count: Int, forgedAt: Int, alice: SignedReplicaFixture) throws -> (genuine: [Op], forged: [Op]) {
        var plain = Replica(id: alice.replica.id), other = Replica(id: alice.replica.id)
        var genuine = [try plain.createGallery("g")], altered = [try other.createGallery("g")]
        for index in 0..<count {
            genuine.append(try plain.insert([.titled("i\(index)")], into: "g", at: index))
            altered.append(try other.insert([.titled(index + 1 == forgedAt ? "forged" : "i\(index)")], into: "g", at: index))
        }
        let space = OpSigning.spaceID(ofSecret: SignedReplicaFixture.secret)
        let key = OpSigning.signingKey(fromNodeKey: alice.nodeKey)
        var hash = OpSigning.genesis(space: space, replica: alice.replica.id, publicKey: key.publicKey.rawRepresentation)
        for index in genuine.indices {
            hash = OpSigning.chain(hash, genuine[index])
            var seal = OpSeal()
            if index == 0 { seal.keyClaim = OpSeal.KeyClaim(publicKey: key.publicKey.rawRepresentation, salt: alice.salt) }
            seal.signature = key.signature(for: OpSigning.message(genuine[index].id, chain: hash))
            genuine[index].seal = seal
        }
        var forged = genuine
        forged[forgedAt] = altered[forgedAt]
        forged[forgedAt].seal = genuine[forgedAt].seal
        #expect(forged[forgedAt].id == genuine[forgedAt].id && forged[forgedAt].unsealed != genuine[forgedAt].unsealed)
        return (genuine, forged)
    }

    /// Bob's signed replica whose log holds `ops` as read from his own files (not checked).
    static func relay(holding ops: [Op]) -> Replica {
        ForgedLogCatchUpTests.holder(of: ops)
    }

    /// The batches `replica` sends a peer at `version`, and the replicas they found not covered
    /// (what the node logs), one entry per batch and replica.
    static func batches(from replica: Replica, to version: VersionVector, maximumBytes: Int) throws -> (batches: [[Op]], notCovered: [ReplicaID]) {
        var batches: [[Op]] = [], notCovered: [ReplicaID] = []
        var next = replica.firstLogPosition(missingFrom: version)
        while next < replica.opCount {
            let (batch, after) = replica.encodedBatch(
                missingFrom: version, from: next, below: replica.opCount, maximumBytes: maximumBytes,
                maximumScanned: 65_536) { notCovered.append($0) }
            if let batch { batches.append(try OpCodec.decode(batch)) }
            next = after
        }
        return (batches, notCovered)
    }

    @Test("A batch over a log whose op 11 is forged carries every signature the log holds; a receiver applies ops up to 10 and refuses 11")
    func forgedChainBatchCarriesEverySignature() throws {
        let alice = SignedReplicaFixture(seed: 1)
        let (genuine, forged) = try Self.chains(count: 20, forgedAt: 11, alice: alice)

        // A sound log: the batch carries the first op's seal and the last op's signature only.
        let sound = Self.relay(holding: genuine)
        #expect(sound.version == VersionVector([alice.replica.id: genuine[20].lastCounter]))
        let soundBatches = try Self.batches(from: sound, to: VersionVector(), maximumBytes: 1 << 20)
        let soundSent = try #require(soundBatches.batches.first)
        #expect(soundSent.filter { $0.seal?.signature != nil }.map(\.id) == [genuine[0].id, genuine[20].id])
        #expect(soundBatches.notCovered.isEmpty)

        // The forged log: every signature it holds goes out, and the sender is told (to log it).
        let damaged = Self.relay(holding: forged)
        #expect(damaged.version == sound.version)
        let (batches, notCovered) = try Self.batches(from: damaged, to: VersionVector(), maximumBytes: 1 << 20)
        let sent = try #require(batches.first)
        #expect(batches.count == 1)
        #expect(sent.map(\.id) == forged.map(\.id))
        #expect(sent.allSatisfy { $0.seal?.signature != nil })
        #expect(sent == forged)
        #expect(notCovered == [alice.replica.id])

        // The receiver's bisection applies the valid prefix (ops 0 to 10) and refuses op 11.
        var carol = SignedReplicaFixture(seed: 3)
        let result = carol.receive(sent)
        #expect(result.forged != nil)
        #expect(carol.replica.version == VersionVector([alice.replica.id: genuine[10].lastCounter]))
    }

    @Test("A catch-up that starts mid-chain over a forged op before it sends every signature of the batch; the hash of a batch's end is kept for the next")
    func forgedPrefixAndConsecutiveBatches() throws {
        let alice = SignedReplicaFixture(seed: 1)
        let (genuine, forged) = try Self.chains(count: 20, forgedAt: 3, alice: alice)
        let damaged = Self.relay(holding: forged)
        // The peer holds ops 0 to 9 (its own, genuine): the batch from 10 on carries every signature.
        let from = VersionVector([alice.replica.id: genuine[9].lastCounter])
        let sent = try #require(try SignatureCheckpointTests.catchUpBatches(from: damaged, to: from, maximumBytes: 1 << 20).first)
        #expect(sent.map(\.id) == Array(genuine[10...]).map(\.id))
        #expect(sent.allSatisfy { $0.seal?.signature != nil })

        // A sound log in batches of a few ops: each batch carries its last op's signature only.
        let sound = Self.relay(holding: genuine)
        let (batches, notCovered) = try Self.batches(from: sound, to: VersionVector(), maximumBytes: 200)
        #expect(batches.count > 2)
        for batch in batches.dropFirst() { #expect(batch.filter { $0.seal?.signature != nil }.map(\.id) == [batch.last?.id]) }
        let hashes = try #require(sound.authenticator as? OpSignatures).catchUpChainHashes
        for batch in batches.dropLast() {
            #expect(hashes.hash(replica: alice.replica.id, counter: try #require(batch.last).lastCounter) != nil)
        }
        #expect(notCovered.isEmpty)
    }

    @Test("A relay's sound log whose batches end between the signatures it holds: every batch covered (nothing logged), each keeping its last signed op's signature so the receiver applies up to it at once")
    func relayBatchesEndingBetweenSignatures() throws {
        let alice = SignedReplicaFixture(seed: 1)
        // The relay holds signatures on op 0, the checkpoints, op 9,000 (the end of a frame it got)
        // and the last op: batches of 16 KiB end between them.
        let ops = try SignatureCheckpointTests.aliceChain(count: 10_000, signedAt: [9_000], alice: alice)
        let relay = Self.relay(holding: ops)
        let (batches, notCovered) = try Self.batches(from: relay, to: VersionVector(), maximumBytes: 16_384)
        #expect(batches.count > 10)
        #expect(notCovered.isEmpty, "\(notCovered.count) batches found not covered")
        let held = Set(ops.filter { $0.seal?.signature != nil }.map(\.id))
        var carol = SignedReplicaFixture(seed: 3)
        for batch in batches {
            let result = carol.receive(batch)
            #expect(result.forged == nil)
            // Every signature the relay holds goes out (a checkpoint's, a frame end's, the last
            // op's: at most one that is not a checkpoint per batch of this size), and the
            // receiver applies up to the last one at once.
            #expect(batch.filter { $0.seal?.signature != nil }.map(\.id) == batch.filter { held.contains($0.id) }.map(\.id))
            if let lastSigned = batch.last(where: { $0.seal?.signature != nil }) {
                #expect(carol.replica.version[alice.replica.id] >= lastSigned.lastCounter)
            }
        }
        #expect(carol.replica.version == relay.version)
    }

    @Test("A stale or foreign chain hash in the shared cache can only make a sound batch carry every signature, never pass a forged one")
    func staleCacheEntry() throws {
        let alice = SignedReplicaFixture(seed: 1)
        let (genuine, forged) = try Self.chains(count: 20, forgedAt: 15, alice: alice)
        let from = VersionVector([alice.replica.id: genuine[9].lastCounter])
        // A wrong hash where the batch starts: the sound log's batch is found not covered.
        let sound = Self.relay(holding: genuine)
        let soundHashes = try #require(sound.authenticator as? OpSignatures).catchUpChainHashes
        soundHashes.remember([UInt8](repeating: 7, count: 32), replica: alice.replica.id, counter: genuine[9].lastCounter)
        let (soundBatches, soundNotCovered) = try Self.batches(from: sound, to: from, maximumBytes: 1 << 20)
        #expect(soundNotCovered == [alice.replica.id])
        #expect(try #require(soundBatches.first).allSatisfy { $0.seal?.signature != nil })
        // The genuine hash cached from a sound copy: a forged log's batch over its forged op still fails.
        let damaged = Self.relay(holding: forged)
        let damagedHashes = try #require(damaged.authenticator as? OpSignatures).catchUpChainHashes
        var hash = OpSigning.genesis(space: OpSigning.spaceID(ofSecret: SignedReplicaFixture.secret), replica: alice.replica.id,
                                     publicKey: try #require(genuine[0].seal?.keyClaim?.publicKey))
        for op in genuine[...9] { hash = OpSigning.chain(hash, op) }
        damagedHashes.remember(hash, replica: alice.replica.id, counter: genuine[9].lastCounter)
        let (damagedBatches, damagedNotCovered) = try Self.batches(from: damaged, to: from, maximumBytes: 1 << 20)
        #expect(damagedNotCovered == [alice.replica.id])
        var carol = SignedReplicaFixture(seed: 3)
        let prefix = carol.receive(Array(genuine[...9]))
        #expect(prefix.forged == nil)
        let batch = try #require(damagedBatches.first)
        let result = carol.receive(batch)
        #expect(result.forged != nil)
        #expect(carol.replica.version[alice.replica.id] == genuine[14].lastCounter)
    }

    @Test("A batch not covered is logged once per peer and replica")
    func reportedOncePerPeerAndReplica() {
        var signatures = SignedReplicaFixture(seed: 1).signatures
        let (a, b) = (ReplicaID(deriving: "a"), ReplicaID(deriving: "b"))
        let calls = [(a, "peer 1"), (a, "peer 1"), (b, "peer 1"), (a, "peer 2"), (b, "peer 1")]
        var firsts: [Bool] = []
        for (replica, peer) in calls { firsts.append(signatures.firstUncoveredCatchUp(of: replica, to: peer)) }
        #expect(firsts == [true, false, true, true, false])
    }
}

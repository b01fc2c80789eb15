import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Synchronization
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

    /// Bob's signed replica whose log holds `ops` as read from his own files (not checked), and
    /// what it logs.
    static func relay(holding ops: [Op]) -> (replica: Replica, lines: LoggedLines) {
        let bob = SignedReplicaFixture(seed: 2)
        var plain = Replica(id: bob.replica.id)
        for op in ops { _ = plain.receive(op) }
        let lines = LoggedLines()
        var configuration = SignedReplicaFixture.configuration(nodeKey: bob.nodeKey, salt: bob.salt)
        configuration.log = NodeLog { line in lines.lines.withLock { $0.append(line) } }
        return (SyncNode.signing(plain, configuration), lines)
    }

    @Test("A batch over a log whose op 11 is forged carries every signature the log holds; a receiver applies ops up to 10 and refuses 11")
    func forgedChainBatchCarriesEverySignature() throws {
        let alice = SignedReplicaFixture(seed: 1)
        let (genuine, forged) = try Self.chains(count: 20, forgedAt: 11, alice: alice)

        // A sound log: the batch carries the first op's seal and the last op's signature only.
        let sound = Self.relay(holding: genuine)
        #expect(sound.replica.version == VersionVector([alice.replica.id: genuine[20].lastCounter]))
        let soundSent = try #require(try SignatureCheckpointTests.catchUpBatches(from: sound.replica, to: VersionVector(), maximumBytes: 1 << 20).first)
        #expect(soundSent.filter { $0.seal?.signature != nil }.map(\.id) == [genuine[0].id, genuine[20].id])
        #expect(sound.lines.lines.withLock { $0.isEmpty })

        // The forged log: every signature it holds goes out, and the sender says so.
        let damaged = Self.relay(holding: forged)
        #expect(damaged.replica.version == sound.replica.version)
        let batches = try SignatureCheckpointTests.catchUpBatches(from: damaged.replica, to: VersionVector(), maximumBytes: 1 << 20)
        let sent = try #require(batches.first)
        #expect(batches.count == 1)
        #expect(sent.map(\.id) == forged.map(\.id))
        #expect(sent.allSatisfy { $0.seal?.signature != nil })
        #expect(sent == forged)
        let reported = damaged.lines.lines.withLock { $0 }
        #expect(reported.count == 1)
        #expect(reported.first?.contains("SIGNATURES DO NOT COVER") == true)

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
        let sent = try #require(try SignatureCheckpointTests.catchUpBatches(from: damaged.replica, to: from, maximumBytes: 1 << 20).first)
        #expect(sent.map(\.id) == Array(genuine[10...]).map(\.id))
        #expect(sent.allSatisfy { $0.seal?.signature != nil })

        // A sound log in batches of a few ops: each batch carries its last op's signature only.
        let sound = Self.relay(holding: genuine)
        let batches = try SignatureCheckpointTests.catchUpBatches(from: sound.replica, to: VersionVector(), maximumBytes: 200)
        #expect(batches.count > 2)
        for batch in batches.dropFirst() { #expect(batch.filter { $0.seal?.signature != nil }.map(\.id) == [batch.last?.id]) }
        let hashes = try #require(sound.replica.authenticator as? OpSignatures).catchUpChainHashes
        for batch in batches.dropLast() {
            #expect(hashes.hash(replica: alice.replica.id, counter: try #require(batch.last).lastCounter) != nil)
        }
        #expect(sound.lines.lines.withLock { $0.isEmpty })
    }
}

/// The lines a node logged.
final class LoggedLines: Sendable {
    let lines = Mutex<[String]>([])
}

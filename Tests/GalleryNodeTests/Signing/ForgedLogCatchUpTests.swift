import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

/// A log forged on disk (another op under an existing ID, the genuine op's seal kept) never keeps
/// an honest op that comes before the forged one from a peer (protocol.md 7.3, "Sending"): the
/// author's earlier ops, and other replicas' ops sent with them. The forged op in the middle of a
/// batch, at its start, at and around a checkpoint, and relayed on by a third node. No sockets: a
/// "connection" is a run of catch-up batches from the receiver's version, cut at the first frame
/// the receiver refuses (as the node closes it), then asked again.
@Suite("Forged logs in a catch-up")
struct ForgedLogCatchUpTests {
    /// A chain of `fixture`'s replica: a gallery, then `count` inserts of `itemsPerOp` items
    /// each, every op signed by its key (as its author's log holds it) unless `signedAt` names
    /// the indices that keep a signature (as a relay's log holds it; the first op keeps its
    /// key claim).
    static func chain(of fixture: SignedReplicaFixture, gallery: String, count: Int, itemsPerOp: Int = 1,
                      signedAt: ((Int, Op) -> Bool)? = nil) throws -> [Op] {
        var plain = Replica(id: fixture.replica.id)
        var ops = [try plain.createGallery(gallery)]
        for index in 0..<count {
            ops.append(try plain.insert((0..<itemsPerOp).map { .titled("\(gallery)\(index).\($0)") }, into: gallery, at: 0))
        }
        let space = OpSigning.spaceID(ofSecret: SignedReplicaFixture.secret)
        let key = OpSigning.signingKey(fromNodeKey: fixture.nodeKey)
        var hash = OpSigning.genesis(space: space, replica: fixture.replica.id, publicKey: key.publicKey.rawRepresentation)
        for index in ops.indices {
            hash = OpSigning.chain(hash, ops[index])
            var seal = OpSeal()
            if index == 0 { seal.keyClaim = OpSeal.KeyClaim(publicKey: key.publicKey.rawRepresentation, salt: fixture.salt) }
            if signedAt?(index, ops[index]) ?? true {
                seal.signature = key.signature(for: OpSigning.message(ops[index].id, chain: hash))
            }
            ops[index].seal = seal.isEmpty ? nil : seal
        }
        return ops
    }

    /// `ops` with op `index` (an insert) made again with another title, keeping its ID and seal.
    static func forging(_ ops: [Op], at index: Int) -> [Op] {
        var forged = ops
        guard case .insert(let gallery, let after, let before, var items) = ops[index].action else {
            Issue.record("op \(index) is not an insert")
            return ops
        }
        items[0].fields[.title] = .text("forged")
        forged[index].action = .insert(gallery: gallery, after: after, before: before, items: items)
        return forged
    }

    /// A signed replica whose own files hold `ops` in that order (not checked: as read from disk).
    static func holder(of ops: [Op], seed: UInt8 = 2) -> Replica {
        let node = SignedReplicaFixture(seed: seed)
        var plain = Replica(id: node.replica.id)
        for op in ops { _ = plain.receive(op) }
        return plain.signing(with: SignedReplicaFixture.configuration(nodeKey: node.nodeKey, salt: node.salt))
    }

    /// Two chains interleaved op by op, as a log holds ops of two authors that arrived together.
    static func interleaved(_ first: [Op], _ second: [Op]) -> [Op] {
        var ops: [Op] = []
        for index in 0..<max(first.count, second.count) {
            if index < first.count { ops.append(first[index]) }
            if index < second.count { ops.append(second[index]) }
        }
        return ops
    }

    /// Catches `receiver` up from `sender` in batches of `maximumBytes` over "connections" that end
    /// at the first refused frame, until one brings nothing new. Returns how many were refused.
    @discardableResult
    static func catchUp(_ receiver: inout SignedReplicaFixture, from sender: Replica, maximumBytes: Int) throws -> Int {
        var refused = 0
        for connection in 1...200 {
            let before = receiver.replica.version
            var forged = false
            for batch in try SignatureCheckpointTests.catchUpBatches(from: sender, to: before, maximumBytes: maximumBytes) {
                if receiver.receive(batch, from: connection).forged != nil {
                    forged = true
                    break
                }
            }
            _ = receiver.replica.dropWaitingOps(from: connection)
            if forged { refused += 1 }
            if !forged || receiver.replica.version == before { return refused }
        }
        Issue.record("the catch-up did not settle")
        return refused
    }

    /// The last counter of `chain[index]`, the most of `chain` a peer must get when op `index + 1` is forged.
    static func counter(_ chain: [Op], through index: Int) -> UInt64 {
        index < 0 ? 0 : chain[index].lastCounter
    }

    @Test("A forged op anywhere in the author's log, batches large or small: the peer gets every op of the author before it, and every op of another author before it in the log or in its frame",
          arguments: [200, 1 << 20])
    func forgedOpAtEveryPosition(maximumBytes: Int) throws {
        let alice = SignedReplicaFixture(seed: 1), carol = SignedReplicaFixture(seed: 3)
        let genuine = try Self.chain(of: alice, gallery: "a", count: 20)
        let carols = try Self.chain(of: carol, gallery: "c", count: 20)
        // Op 1 is at the start of the chain after its first; with 200-byte batches each op of a
        // few also starts a batch, ends one, or sits in the middle of one.
        for forgedAt in 1...20 {
            let sender = Self.holder(of: Self.interleaved(Self.forging(genuine, at: forgedAt), carols))
            var bob = SignedReplicaFixture(seed: 4)
            let refused = try Self.catchUp(&bob, from: sender, maximumBytes: maximumBytes)
            #expect(refused > 0, "op \(forgedAt) forged")
            #expect(bob.replica.version[alice.replica.id] == Self.counter(genuine, through: forgedAt - 1), "op \(forgedAt) forged")
            // Carol's ops before the forged one in the log (0 to forgedAt - 1) come; in one frame
            // with it, all of hers. (Ops after it in other frames: the receiver closes the
            // connection at that frame, every time: they come from other peers.)
            let carolsBefore = Self.counter(carols, through: maximumBytes > 200 ? carols.count - 1 : forgedAt - 1)
            #expect(bob.replica.version[carol.replica.id] >= carolsBefore, "op \(forgedAt) forged")
            #expect(!bob.replica.chain(of: alice.replica.id).contains { $0.id == genuine[forgedAt].id })
        }
    }

    @Test("A forged op at a checkpoint, just before or just after it: the author's log gives every op before it; a relay's log every op up to the last signature it holds before it")
    func forgedOpAroundACheckpoint() throws {
        let alice = SignedReplicaFixture(seed: 1)
        // 20 inserts of 300 items: op 14 ends at counter 4,201, the first checkpoint.
        let genuine = try Self.chain(of: alice, gallery: "a", count: 20, itemsPerOp: 300)
        let checkpoint = try #require(genuine.firstIndex { $0.isSignatureCheckpoint })
        #expect(checkpoint > 2 && checkpoint < 18)
        // A relay holds the key claim, the checkpoints' signatures, and the last op's of a frame it
        // got (op 5 here).
        let relayed = try Self.chain(of: alice, gallery: "a", count: 20, itemsPerOp: 300) { index, op in
            index == 5 || op.isSignatureCheckpoint || index == 20
        }
        for forgedAt in [checkpoint - 1, checkpoint, checkpoint + 1] {
            for maximumBytes in [4_096, 1 << 20] {
                var bob = SignedReplicaFixture(seed: 4)
                try Self.catchUp(&bob, from: Self.holder(of: Self.forging(genuine, at: forgedAt)), maximumBytes: maximumBytes)
                #expect(bob.replica.version[alice.replica.id] == Self.counter(genuine, through: forgedAt - 1),
                        "author's log, op \(forgedAt) forged, batches of \(maximumBytes)")
                var dave = SignedReplicaFixture(seed: 5)
                try Self.catchUp(&dave, from: Self.holder(of: Self.forging(relayed, at: forgedAt)), maximumBytes: maximumBytes)
                let lastHeld = try #require(relayed[..<forgedAt].lastIndex { $0.seal?.signature != nil })
                #expect(dave.replica.version[alice.replica.id] == Self.counter(genuine, through: lastHeld),
                        "relay's log, op \(forgedAt) forged, batches of \(maximumBytes)")
            }
        }
    }

    @Test("Relayed through a third node: what the peer of a forged log got, it passes on whole, its batches covered")
    func forgedLogRelayedOn() throws {
        let alice = SignedReplicaFixture(seed: 1), carol = SignedReplicaFixture(seed: 3)
        let genuine = try Self.chain(of: alice, gallery: "a", count: 20)
        let carols = try Self.chain(of: carol, gallery: "c", count: 20)
        let sender = Self.holder(of: Self.interleaved(Self.forging(genuine, at: 11), carols))
        var bob = SignedReplicaFixture(seed: 4)
        try Self.catchUp(&bob, from: sender, maximumBytes: 1 << 20)
        #expect(bob.replica.version[alice.replica.id] == genuine[10].lastCounter)
        for maximumBytes in [200, 1 << 20] {
            var uncovered: [ReplicaID] = []
            var next = bob.replica.firstLogPosition(missingFrom: VersionVector())
            var dave = SignedReplicaFixture(seed: 5)
            while next < bob.replica.opCount {
                let (batch, after) = bob.replica.encodedBatch(
                    missingFrom: VersionVector(), from: next, below: bob.replica.opCount,
                    maximumBytes: maximumBytes, maximumScanned: 65_536) { uncovered.append($0) }
                if let batch {
                    let result = dave.receive(try OpCodec.decode(batch))
                    #expect(result.forged == nil)
                }
                next = after
            }
            #expect(uncovered.isEmpty, "Bob's log is sound: no batch of his sends every signature")
            #expect(dave.replica.version == bob.replica.version)
            #expect(dave.replica.version[carol.replica.id] == carols.last?.lastCounter)
        }
    }
}

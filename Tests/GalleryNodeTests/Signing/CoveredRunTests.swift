import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

/// The ops a checked signature covers, kept per replica as one run in chain order and admitted
/// front to back (`OpSignatures.CoveredRun`), and a frame's check that finds each replica's runs
/// with one lookup per change of replica. No sockets.
@Suite("Covered runs")
struct CoveredRunTests {
    /// Alice's gallery and `count` inserts, as Bob's log keeps them: one signature at the end.
    static func storedOps(count: Int) throws -> [Op] {
        var alice = SignedReplicaFixture(seed: 1)
        var bob = SignedReplicaFixture(seed: 2)
        #expect(bob.receive(try OpSignatureTests.aliceOps(&alice, count: count)).forged == nil)
        return bob.replica.ops
    }

    /// Carol's signatures check `ops` as one frame from connection 1, her replica's own check
    /// off meanwhile (nothing is applied): Carol, and what the check passed.
    static func checkedByCarol(_ ops: [Op]) -> (SignedReplicaFixture, OpSignatures.FrameCheck) {
        var carol = SignedReplicaFixture(seed: 3)
        var signatures = carol.signatures
        carol.replica.authenticator = nil
        let checked = signatures.check(frame: ops, from: 1, state: carol.replica)
        carol.replica.authenticator = signatures
        return (carol, checked)
    }

    @Test("The one op of a covered run that differs from what its author signed is refused; the ops before it are applied, none after it")
    func differingOpInTheMiddleOfARun() throws {
        let ops = try Self.storedOps(count: 9)
        let (checkedBy, checked) = Self.checkedByCarol(ops)
        var carol = checkedBy
        #expect(checked.forged == nil)
        #expect(checked.ops.count == 10)
        // The replica is given op 5 changed (after the check, as a second version of its ID).
        var given = checked.ops
        given[5].action = .insert(gallery: "g", after: nil, before: nil, items: [.titled("changed")])
        var outcomes: [ReceiveOutcome] = []
        for op in given { outcomes.append(carol.replica.receive(op, from: 1)) }
        #expect(outcomes[..<5].allSatisfy { if case .applied = $0 { true } else { false } })
        guard case .rejected(.forgedOp(let id, let reason)) = outcomes[5] else {
            Issue.record("op 5 was not refused as forged: \(outcomes[5])")
            return
        }
        #expect(id == ops[5].id)
        #expect(reason.contains("differs from the op its replica signed"))
        #expect(carol.replica.opCount == 5)
        #expect(carol.replica.item(ops[5].id) == nil)
        // The true op 5 again, without the signature the check dropped: nothing covers it now.
        #expect(carol.replica.contains(ops[9].id) == false)
        if case .rejected(.forgedOp) = carol.replica.receive(checked.ops[5], from: 1) {} else {
            Issue.record("op 5 was admitted again without a signature")
        }
        #expect(carol.replica.opCount == 5)
    }

    @Test("A forged op in the middle of a frame: the ops its author's signatures cover before it are applied, it and the rest are not")
    func forgedOpInTheMiddleOfAFrame() throws {
        var alice = SignedReplicaFixture(seed: 1)
        let ops = try OpSignatureTests.aliceOps(&alice, count: 9)
        var changed = ops
        changed[5].action = .insert(gallery: "g", after: nil, before: nil, items: [.titled("changed")])
        var bob = SignedReplicaFixture(seed: 2)
        let result = bob.receive(changed)
        #expect(result.forged?.contains("signature") == true)
        #expect(bob.replica.opCount == 5)
        #expect(bob.replica.item(ops[4].id)?.title == "i3")
        #expect(bob.replica.item(ops[5].id) == nil)
        // Without the signatures in between (a log's catch-up): none of them is applied.
        let stored = try Self.storedOps(count: 9)
        var forgedLog = stored
        forgedLog[5].action = changed[5].action
        var carol = SignedReplicaFixture(seed: 3)
        #expect(carol.receive(forgedLog).forged != nil)
        #expect(carol.replica.opCount == 0)
        #expect(carol.signatures.expectedCount == 0)
    }

    @Test("Covered ops the replica took from the node's own files are passed over; the rest are admitted")
    func coveredOpsAppliedFromOwnFiles() throws {
        let ops = try Self.storedOps(count: 6)
        let (checkedBy, checked) = Self.checkedByCarol(ops)
        var carol = checkedBy
        // The first three from Carol's own files (no source: not admitted), then the frame's.
        for op in checked.ops[..<3] { carol.replica.receive(op) }
        for op in checked.ops[3...] {
            guard case .applied = carol.replica.receive(op, from: 1) else {
                Issue.record("op \(op.id) was not applied")
                return
            }
        }
        #expect(carol.replica.opCount == 7)
        #expect(carol.signatures.expected.isEmpty)
        #expect(carol.signatures.expectedCount == 0)
    }

    @Test("Two runs of one replica in one frame (a duplicate between them): the second follows the first's covered ops")
    func secondRunOfAFrame() throws {
        var alice = SignedReplicaFixture(seed: 1)
        let ops = try OpSignatureTests.aliceOps(&alice, count: 5)
        var bob = SignedReplicaFixture(seed: 2)
        let frame = Array(ops[..<3]) + [ops[1]] + Array(ops[3...])
        let result = bob.receive(frame)
        #expect(result.forged == nil)
        #expect(bob.replica.version == alice.replica.version)
        #expect(bob.signatures.verifications == 2)
        #expect(bob.signatures.expectedCount == 0)
    }

    @Test("Interleaved replicas in one frame: one signature check per replica, every op applied")
    func interleavedReplicas() throws {
        var alice = SignedReplicaFixture(seed: 1)
        var dave = SignedReplicaFixture(seed: 4)
        let fromAlice = try OpSignatureTests.aliceOps(&alice, count: 20)
        var fromDave = [try dave.replica.createGallery("h")]
        for index in 0..<20 { fromDave.append(try dave.replica.insert([.titled("d\(index)")], into: "h", at: index)) }
        var frame: [Op] = []
        for (a, d) in zip(fromAlice, fromDave) { frame += [a, d] }
        var bob = SignedReplicaFixture(seed: 2)
        let result = bob.receive(frame)
        #expect(result.forged == nil)
        #expect(bob.replica.opCount == 42)
        #expect(bob.signatures.verifications == 2)
        #expect(bob.replica.chain(of: dave.replica.id).dropLast().allSatisfy { $0.seal?.signature == nil })
    }

    @Test("A second sender's copy of covered ops that wait for another replica's op keeps them covered; all are applied when it arrives")
    func coveredOpsWaitingForADependency() throws {
        var alice = SignedReplicaFixture(seed: 1)
        var dave = SignedReplicaFixture(seed: 4)
        let fromDave = [try dave.replica.createGallery("h"), try dave.replica.insert([.titled("d")], into: "h", at: 0)]
        #expect(alice.receive(fromDave).forged == nil)
        var fromAlice = try OpSignatureTests.aliceOps(&alice, count: 2)
        fromAlice.append(try alice.replica.move(fromDave[1].id, to: "g", at: 0))
        fromAlice.append(try alice.replica.insert([.titled("after")], into: "g", at: 0))
        var bob = SignedReplicaFixture(seed: 2)
        // From connection 1, then the same from connection 2: the move and the op after it wait for Dave's item.
        #expect(bob.receive(fromAlice, from: 1).forged == nil)
        #expect(bob.replica.opCount == 3)
        #expect(bob.receive(fromAlice, from: 2).forged == nil)
        #expect(bob.signatures.expectedCount == 2)
        #expect(bob.receive(fromDave, from: 3).forged == nil)
        #expect(bob.replica.version.includes(alice.replica.version))
        #expect(bob.replica.opCount == 7)
        #expect(bob.replica.takeForgedHeldOps().isEmpty)
        #expect(bob.signatures.expectedCount == 0)
    }
}

/// Chain hashes made on the connection's event loop (`FrameChainHasher`), taken by the frame's
/// check only where they start at the hash it reached. No sockets.
@Suite("Frame chain hashes")
struct FrameChainHashTests {
    static let space = OpSigning.spaceID(ofSecret: SignedReplicaFixture.secret)

    /// Checks `ops` as the node does with steps made by `hasher`, then applies what passed.
    static func receive(_ ops: [Op], into fixture: inout SignedReplicaFixture, hasher: FrameChainHasher, from source: Int = 1) -> String? {
        let steps = hasher.steps(of: ops, space: space)
        var signatures = fixture.signatures
        fixture.replica.authenticator = nil
        let checked = signatures.check(frame: ops, from: source, state: fixture.replica, steps: steps)
        fixture.replica.authenticator = signatures
        for op in checked.ops { fixture.replica.receive(op, from: source) }
        return checked.forged?.reason
    }

    @Test("A catch-up in frames cut anywhere: the loop makes no chain hash of its own past the held-back ops, and every op is applied")
    func stepsTakeTheHashingOffTheLoop() throws {
        let stored = try CoveredRunTests.storedOps(count: 300)
        let hasher = FrameChainHasher()
        var carol = SignedReplicaFixture(seed: 3)
        // Frames of 70 ops: all but the last end in the middle of the run (its one signature is last).
        var held = 0
        for start in stride(from: 0, to: stored.count, by: 70) {
            let frame = Array(stored[start..<min(start + 70, stored.count)])
            #expect(Self.receive(frame, into: &carol, hasher: hasher) == nil)
            held = carol.signatures.tails[1]?.count ?? 0
        }
        #expect(held == 0)
        #expect(carol.replica.opCount == 301)
        // The ops held back for the signature of the last frame were hashed on the loop, the rest were not.
        #expect(carol.signatures.chainHashesMade == 280)
        // The same frames without steps: every op hashed on the loop.
        var dave = SignedReplicaFixture(seed: 4)
        for start in stride(from: 0, to: stored.count, by: 70) {
            #expect(dave.receive(Array(stored[start..<min(start + 70, stored.count)])).forged == nil)
        }
        #expect(dave.signatures.chainHashesMade == 301)
        #expect(dave.replica.version == carol.replica.version)
    }

    @Test("Steps that start elsewhere than the chain held here are not taken; a forged op is refused with steps as without")
    func stepsAreTakenOnlyFromTheHashReached() throws {
        var alice = SignedReplicaFixture(seed: 1)
        let ops = try OpSignatureTests.aliceOps(&alice, count: 9)
        // The hasher follows a chain in which op 5 is another op: its steps after op 5 start elsewhere.
        var changed = ops
        changed[5].action = .insert(gallery: "g", after: nil, before: nil, items: [.titled("changed")])
        let misled = FrameChainHasher()
        _ = misled.steps(of: Array(changed[..<6]), space: Self.space)
        var bob = SignedReplicaFixture(seed: 2)
        #expect(Self.receive(Array(ops[..<5]), into: &bob, hasher: FrameChainHasher()) == nil)
        #expect(Self.receive(Array(ops[5...]), into: &bob, hasher: misled) == nil)
        #expect(bob.replica.version == alice.replica.version)
        #expect(bob.signatures.chainHashesMade == 5)
        // The forged frame, with steps made from it: refused, the ops before it applied.
        var carol = SignedReplicaFixture(seed: 3)
        #expect(Self.receive(changed, into: &carol, hasher: FrameChainHasher())?.contains("signature") == true)
        #expect(carol.replica.opCount == 5)
        #expect(carol.replica.item(ops[5].id) == nil)
    }

    @Test("A chain seeded from the node's head: the next frame's ops are hashed off the loop")
    func seededChain() throws {
        var alice = SignedReplicaFixture(seed: 1)
        let stored = try OpSignatureTests.aliceOps(&alice, count: 40)
        var carol = SignedReplicaFixture(seed: 3)
        #expect(carol.receive(Array(stored[..<21])).forged == nil)
        let hasher = FrameChainHasher()
        let replica = stored[0].id.replica
        #expect(!hasher.follows(replica))
        let head = try #require(carol.signatures.heads[replica])
        hasher.seed(replica, counter: head.counter, hash: head.hash)
        let before = carol.signatures.chainHashesMade
        #expect(Self.receive(Array(stored[21...]), into: &carol, hasher: hasher) == nil)
        #expect(carol.signatures.chainHashesMade == before)
        #expect(carol.replica.opCount == 41)
    }
}

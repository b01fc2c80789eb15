import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

/// What the node asks of a signing replica (`Replica+Signatures`), without a node: the install,
/// a frame's check, the catch-up's version, uncovered catch-ups, a closed connection's tail.
@Suite("Replica signatures")
struct ReplicaSignaturesTests {
    /// A replica holding two ops of a replica that signs nothing (`stored`), then installing
    /// signatures (`signed`); and that replica (`legacy`).
    static func signingOverLegacyOps() throws -> (legacy: Replica, stored: Replica, signed: Replica) {
        var legacy = Replica(id: ReplicaID(0x1234))
        let old = [try legacy.createGallery("old"), try legacy.insert([.titled("kept")], into: "old", at: 0)]
        let fixture = SignedReplicaFixture(seed: 4)
        var stored = Replica(id: fixture.replica.id)
        for op in old { stored.receive(op) }
        return (legacy, stored, stored.signing(with: SignedReplicaFixture.configuration(nodeKey: fixture.nodeKey, salt: fixture.salt)))
    }

    @Test("Installing signatures: none without a salt; with one, the replica's unsigned replicas are those whose first op claims no key")
    func install() throws {
        let plain = Replica(id: ReplicaID(0x55)).signing(with: NodeConfiguration(name: "plain", secret: SignedReplicaFixture.secret))
        #expect(plain.authenticator == nil)
        let (legacy, _, signed) = try Self.signingOverLegacyOps()
        let signatures = try #require(signed.authenticator as? OpSignatures)
        #expect(signatures.unsignedReplicas == [legacy.id])
        #expect(signed.opCount == 2)
    }

    @Test("A frame's check gives back the ops and the forged one, and leaves the signatures installed")
    func frameCheck() throws {
        var unsigned = Replica(id: ReplicaID(0x77))
        #expect(unsigned.checkSignatures(frame: [], from: 1) == nil)
        var alice = SignedReplicaFixture(seed: 1)
        var bob = SignedReplicaFixture(seed: 2)
        let ops = try OpSignatureTests.aliceOps(&alice, count: 3)
        // The fixture's receive checks through `Replica.checkSignatures`, then applies.
        let received = bob.receive(ops)
        #expect(received.forged == nil)
        #expect(bob.replica.opCount == ops.count)
        #expect(bob.replica.authenticator is OpSignatures)
        let mallory = SignedReplicaFixture(seed: 9)
        var forged = Op(id: OpID(counter: 10, replica: alice.replica.id), previous: ops.last!.lastCounter,
                        action: .update(item: ops[1].id, field: .title, value: .text("forged")))
        let chain = OpSigning.chain(bob.signatures.heads[alice.replica.id]!.hash, forged)
        forged.seal = OpSeal(signature: mallory.nodeKeySigning(OpSigning.message(forged.id, chain: chain)))
        let refusal = bob.replica.checkSignatures(frame: [forged], from: 2)
        let refused = try #require(refusal)
        #expect(refused.forged?.op.id == forged.id)
        #expect(refused.ops.isEmpty)
        #expect(bob.replica.authenticator is OpSignatures)
    }

    @Test("A catch-up counts the ops of replicas that sign nothing as held; an unsigned replica's version is unchanged")
    func catchUpVersion() throws {
        let (legacy, stored, signed) = try Self.signingOverLegacyOps()
        let asked = VersionVector([ReplicaID(0x99): 3])
        let sending = signed.countingUnsignedReplicasAsHeld(asked)
        #expect(sending[legacy.id] == legacy.version[legacy.id])
        #expect(sending[ReplicaID(0x99)] == 3)
        #expect(stored.countingUnsignedReplicasAsHeld(asked) == asked)
    }

    @Test("An uncovered catch-up is reported once per peer and replica")
    func uncoveredOncePerPeer() {
        var bob = SignedReplicaFixture(seed: 2)
        let replicas = [ReplicaID(0x10), ReplicaID(0x20)]
        #expect(bob.replica.firstUncoveredCatchUps(replicas, to: "carol") == replicas)
        #expect(bob.replica.firstUncoveredCatchUps(replicas, to: "carol").isEmpty)
        #expect(bob.replica.firstUncoveredCatchUps([ReplicaID(0x10)], to: "dave") == [ReplicaID(0x10)])
        #expect(bob.replica.authenticator is OpSignatures)
        var unsigned = Replica(id: ReplicaID(0x77))
        #expect(unsigned.firstUncoveredCatchUps(replicas, to: "carol").isEmpty)
    }

    @Test("Ops a connection left waiting for a signature are forgotten when it closes")
    func tailForgotten() throws {
        var alice = SignedReplicaFixture(seed: 1)
        var bob = SignedReplicaFixture(seed: 2)
        var ops = try OpSignatureTests.aliceOps(&alice, count: 3)
        ops[3].seal = nil
        let check = bob.replica.checkSignatures(frame: ops, from: 5)
        let checked = try #require(check)
        #expect(checked.ops.count == 3)
        #expect(bob.signatures.tails[5]?.map(\.id) == [ops[3].id])
        bob.replica.forgetUnsignedTail(of: 5)
        #expect(bob.signatures.tails[5] == nil)
        #expect(bob.replica.authenticator is OpSignatures)
    }
}

import GalleryCrypto
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

/// The chains a node vouches for (`OpSignatures.vouches(for:through:)`): the ops it sealed or
/// admitted, in chain order, need no sender's check in a catch-up; ops of its own files do. No
/// sockets.
@Suite("Vouched chains")
struct VouchedChainTests {
    /// Whether the sender's check hashed `replica`'s chain in `log`'s catch-up (it keeps the hash
    /// of each batch's end for the next batch).
    static func senderChecked(_ log: Replica, replica: ReplicaID, through counter: UInt64) -> Bool {
        (log.authenticator as? OpSignatures)?.catchUpChainHashes.hash(replica: replica, counter: counter) != nil
    }

    @Test("The author's ops and the ops a peer admitted are vouched for: their catch-up leaves the same signatures out without checking them again")
    func sealedAndAdmittedOpsAreVouched() throws {
        var alice = SignedReplicaFixture(seed: 1)
        try alice.replica.createGallery("g")
        for index in 0..<4_200 { try alice.replica.insert([.titled("i\(index)")], into: "g", at: index) }
        let last = alice.replica.version[alice.replica.id]
        #expect(alice.signatures.vouches(for: alice.replica.id, through: last))
        #expect(!alice.signatures.vouches(for: alice.replica.id, through: last + 1))
        let sent = try SignatureCheckpointTests.catchUpBatches(from: alice.replica, to: VersionVector(), maximumBytes: 1 << 20)
        #expect(!Self.senderChecked(alice.replica, replica: alice.replica.id, through: last))
        #expect(sent.joined().filter { $0.seal?.signature != nil }.map(\.id.counter) == [1, 4_096, 4_201])

        // Bob admits them all; his catch-up of Carol, in small batches, is not checked again.
        var bob = SignedReplicaFixture(seed: 2)
        #expect(bob.receive(Array(sent.joined())).forged == nil)
        #expect(bob.signatures.vouches(for: alice.replica.id, through: last))
        var carol = SignedReplicaFixture(seed: 3)
        for batch in try SignatureCheckpointTests.catchUpBatches(from: bob.replica, to: VersionVector(), maximumBytes: 8_192) {
            #expect(carol.receive(batch).forged == nil)
        }
        #expect(!Self.senderChecked(bob.replica, replica: alice.replica.id, through: last))
        #expect(carol.replica.version == alice.replica.version)
        #expect(carol.signatures.tails[1] == nil)
    }

    @Test("Ops read from the node's own files are not vouched for, nor the ops admitted after them: their catch-up is checked")
    func opsOfOwnFilesAreChecked() throws {
        var alice = SignedReplicaFixture(seed: 1)
        try alice.replica.createGallery("g")
        for index in 0..<300 { try alice.replica.insert([.titled("i\(index)")], into: "g", at: index) }
        let ops = alice.replica.chain(of: alice.replica.id)
        // Dave's files hold the first 200 ops; he admits the other 101 from a peer.
        var dave = SignedReplicaFixture(seed: 4)
        dave.replica = ForgedLogCatchUpTests.holder(of: Array(ops[..<200]), seed: 4)
        #expect(!dave.signatures.vouches(for: alice.replica.id, through: 1))
        #expect(dave.receive(Array(ops[200...])).forged == nil)
        #expect(dave.replica.version == alice.replica.version)
        let last = alice.replica.version[alice.replica.id]
        #expect(!dave.signatures.vouches(for: alice.replica.id, through: last))
        let sent = try SignatureCheckpointTests.catchUpBatches(from: dave.replica, to: VersionVector(), maximumBytes: 1 << 20)
        #expect(Self.senderChecked(dave.replica, replica: alice.replica.id, through: last))
        var erin = SignedReplicaFixture(seed: 5)
        #expect(erin.receive(Array(sent.joined())).forged == nil)
        #expect(erin.replica.version == alice.replica.version)
    }
}

import Foundation
import GalleryCrypto
import GalleryModel
@testable import GalleryWire
import Testing

/// The membership example of protocol.md section 16 (`membershipRecords`, frame type 0x41): alice's
/// `added` record of herself and her `revoked` record of bob, signed with the signing keys derived
/// from the golden static keys; checked byte for byte and by the signatures themselves.
@Suite("Golden membership frame of protocol.md")
struct GoldenMembershipTests {
    static let aliceStatic = GoldenFrameTests.key("initiator static")
    static let bobStatic = GoldenFrameTests.key("responder static")
    static let aliceSigning = OpSigning.signingKey(fromNodeKey: aliceStatic)
    static let bobSigning = OpSigning.signingKey(fromNodeKey: bobStatic)

    /// Bob's replicas bound with salts 1 and 2, cut off at counters 7 and 300.
    static var bobCutoffs: [ReplicaID: UInt64] {
        let space = GoldenSignedOpsTests.space
        let key = bobSigning.publicKey.rawRepresentation
        return [OpSigning.replicaID(space: space, publicKey: key, salt: 1): 7,
                OpSigning.replicaID(space: space, publicKey: key, salt: 2): 300]
    }

    /// The two records of the example, as the code makes them.
    static var records: [MemberRecord] {
        let added = MemberRecord(kind: .added, nodeKey: aliceStatic.publicKey.rawRepresentation,
                                 signingKey: aliceSigning.publicKey.rawRepresentation, name: "alice", at: 1_700_000_000_000)
        let revoked = MemberRecord(kind: .revoked, nodeKey: bobStatic.publicKey.rawRepresentation,
                                   signingKey: bobSigning.publicKey.rawRepresentation, name: "bob", at: 1_700_000_600_000,
                                   cutoffs: bobCutoffs)
        return [added.signed(by: aliceSigning), revoked.signed(by: aliceSigning)]
    }

    @Test("The membership records example matches protocol.md, decodes to the same records, and its signatures hold only as sent")
    func membershipRecordsExample() throws {
        let documented = try GoldenFrameTests.documentedFrames()
        let message = Message.membership(.records(Self.records))
        let encoded = message.frame.encoded
        guard let bytes = documented["membershipRecords"] else {
            Issue.record("protocol.md lacks golden frame membershipRecords: \(GoldenFrameTests.hex(encoded))")
            return
        }
        #expect(bytes == encoded, "the code sends \(GoldenFrameTests.hex(encoded))")
        let frame = try #require(try FrameDecoder.single(bytes))
        #expect(frame.knownType == .membership && frame.flags == Frame.ignorableFlag)
        guard case .membership(.records(let records)) = try Message(frame: frame) else {
            Issue.record("not a membership records frame")
            return
        }
        #expect(records == Self.records)
        #expect(try Message(frame: frame).frame.encoded == bytes)
        let signaturesHold = records.map(\.signatureHolds)
        #expect(signaturesHold == [true, true])
        #expect(records.map(\.signer) == [Self.aliceSigning.publicKey.rawRepresentation, Self.aliceSigning.publicKey.rawRepresentation])
        #expect(records[0].nodeID == NodeID(key: Self.aliceStatic.publicKey))
        #expect(records[1].nodeID == NodeID(key: Self.bobStatic.publicKey))
        // The documented signatures cover what they say: another cut-off or another name breaks them.
        var changed = records[1]
        changed.cutoffs[changed.cutoffs.keys.min()!] = 301
        #expect(!changed.signatureHolds)
        var renamed = records[0]
        renamed.name = "mallory"
        #expect(!renamed.signatureHolds)
    }
}

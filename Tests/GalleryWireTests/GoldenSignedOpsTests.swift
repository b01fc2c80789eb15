import Foundation
import GalleryCrypto
import GalleryModel
@testable import GalleryWire
import Testing

/// The signed example of protocol.md section 16 (`opsSigned`): alice's first two ops as she
/// sends them, sealed with the signing key derived from her golden static key, under the replica
/// ID bound to it; checked byte for byte and by the signatures themselves.
@Suite("Golden signed ops of protocol.md")
struct GoldenSignedOpsTests {
    static let space = OpSigning.spaceID(ofSecret: GoldenFrameTests.secret)
    static let signingKey = OpSigning.signingKey(fromNodeKey: GoldenFrameTests.key("initiator static"))
    static let salt: UInt64 = 1
    static var replica: ReplicaID {
        OpSigning.replicaID(space: space, publicKey: signingKey.publicKey.rawRepresentation, salt: salt)
    }

    /// `createGallery("alice")` and the insert of "venice.png", each sealed; the first claims the key.
    static var signedOps: [Op] {
        var create = Op(id: OpID(counter: 1, replica: replica), previous: 0, action: .createGallery(name: "alice"))
        var insert = Op(id: OpID(counter: 2, replica: replica), previous: 1, action: .insert(
            gallery: "alice", after: nil, before: nil, items: [ItemDraft(fields: [.title: .text("venice.png")])]))
        let genesis = OpSigning.genesis(space: space, replica: replica, publicKey: signingKey.publicKey.rawRepresentation)
        let afterCreate = OpSigning.chain(genesis, create)
        let afterInsert = OpSigning.chain(afterCreate, insert)
        create.seal = OpSeal(
            keyClaim: OpSeal.KeyClaim(publicKey: signingKey.publicKey.rawRepresentation, salt: salt),
            signature: signingKey.signature(for: OpSigning.message(create.id, chain: afterCreate)))
        insert.seal = OpSeal(signature: signingKey.signature(for: OpSigning.message(insert.id, chain: afterInsert)))
        return [create, insert]
    }

    @Test("The signed ops example matches protocol.md, decodes to the same ops, and its signatures hold only as sent")
    func signedOpsExample() throws {
        let documented = try GoldenFrameTests.documentedFrames()
        let encoded = Message.ops(Self.signedOps).frame.encoded
        guard let bytes = documented["opsSigned"] else {
            Issue.record("protocol.md lacks golden frame opsSigned: \(GoldenFrameTests.hex(encoded))")
            return
        }
        #expect(bytes == encoded, "the code sends \(GoldenFrameTests.hex(encoded))")
        let frame = try #require(try FrameDecoder.single(bytes))
        guard case .ops(let ops) = try Message(frame: frame) else {
            Issue.record("not an ops frame")
            return
        }
        #expect(ops == Self.signedOps)
        // Checked as a receiver does: the claim binds the replica ID; each signature covers the chain.
        let claim = try #require(ops[0].seal?.keyClaim)
        #expect(OpSigning.replicaID(space: Self.space, publicKey: claim.publicKey, salt: claim.salt) == ops[0].id.replica)
        let key = try Ed25519.PublicKey(rawRepresentation: claim.publicKey)
        var chain = OpSigning.genesis(space: Self.space, replica: Self.replica, publicKey: claim.publicKey)
        for op in ops {
            chain = OpSigning.chain(chain, op)
            #expect(key.isValidSignature(try #require(op.seal?.signature), for: OpSigning.message(op.id, chain: chain)))
        }
        // The same signature does not hold for another title.
        var changed = ops[1]
        changed.action = .insert(gallery: "alice", after: nil, before: nil, items: [ItemDraft(fields: [.title: .text("rialto.png")])])
        let changedChain = OpSigning.chain(OpSigning.chain(
            OpSigning.genesis(space: Self.space, replica: Self.replica, publicKey: claim.publicKey), ops[0]), changed)
        #expect(!key.isValidSignature(ops[1].seal!.signature!, for: OpSigning.message(changed.id, chain: changedChain)))
    }
}

extension FrameDecoder {
    /// The one frame of `bytes`, nothing left over.
    static func single(_ bytes: [UInt8]) throws -> Frame? {
        var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
        decoder.append(bytes)
        let frame = try decoder.next()
        return decoder.bufferedCount == 0 ? frame : nil
    }
}

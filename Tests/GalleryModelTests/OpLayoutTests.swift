@testable import GalleryModel
import Testing

/// `OpCodec.layout(of:at:)`: the parts of an encoded op found without decoding it, which a
/// catch-up uses to leave a covered signature out of an op of the log.
@Suite("Op layout")
struct OpLayoutTests {
    /// Every op kind (`SampleOps.everyKind`), unsealed, sealed with a signature, and the first
    /// with a key claim too; plus inserts whose counters reach a new block of 4,096.
    static func ops() throws -> [Op] {
        let signature = (0..<64).map { UInt8(255 - $0) }
        var ops = try SampleOps.everyKind()
        for op in try SampleOps.everyKind() {
            var sealed = op
            sealed.seal = OpSeal(
                keyClaim: op.previous == 0 ? OpSeal.KeyClaim(publicKey: Array(repeating: 7, count: 32), salt: 0x0203_0000_0000_0002) : nil,
                signature: signature)
            ops.append(sealed)
        }
        let replica = ReplicaID(0x5EED)
        for (counter, span) in [(4_090, 10), (4_095, 1), (4_096, 1), (8_000, 300)] {
            var op = Op(id: OpID(counter: UInt64(counter), replica: replica), previous: UInt64(counter - 1),
                        action: .insert(gallery: "g", after: nil, before: nil, items: Array(repeating: .titled("t"), count: span)))
            op.seal = OpSeal(signature: signature)
            ops.append(op)
        }
        return ops
    }

    @Test("The layout of every kind of op, sealed or not, agrees with its decoding: ID, predecessor, last counter, checkpoint, where its seal starts and where it ends")
    func layoutAgreesWithDecoding() throws {
        let ops = try Self.ops()
        let bytes = OpCodec.encode(ops)
        var reader = ByteReader(bytes)
        _ = try reader.varint()
        for op in ops {
            let start = reader.offset
            let decoded = try OpCodec.decode(from: &reader, checkingBounds: false)
            #expect(decoded == op)
            let layout = try OpCodec.layout(of: bytes, at: start)
            #expect(layout.id == op.id && layout.previous == op.previous && layout.lastCounter == op.lastCounter)
            #expect(layout.isSignatureCheckpoint == op.isSignatureCheckpoint)
            #expect(layout.end == reader.offset)
            #expect(layout.bodyEnd - start == OpCodec.unsealedEncoding(of: op).count)
            #expect(layout.isSealed == (op.seal != nil))
        }
        #expect(reader.isAtEnd)
        #expect(ops.contains { $0.isSignatureCheckpoint } && ops.contains { !$0.isSignatureCheckpoint })
    }

    @Test("An op cut short, of an unknown kind or with an unknown reference tag is refused, not read past")
    func malformedOpsThrow() throws {
        let ops = try Self.ops()
        for op in ops {
            let encoded = OpCodec.encode([op])
            for cut in [2, encoded.count / 2, encoded.count - 1] {
                #expect(throws: DecodingError.self) { try OpCodec.layout(of: Array(encoded[..<cut]), at: 1) }
            }
        }
        var unknownKind = OpCodec.encode([ops[0]])
        unknownKind[1] = 9
        #expect(throws: DecodingError.self) { try OpCodec.layout(of: unknownKind, at: 1) }
        // A delete of another replica's item: kind, counter, replica, gap, then the reference tag.
        let delete = Op(id: OpID(counter: 5, replica: SampleOps.a), previous: 4, action: .delete(item: OpID(counter: 2, replica: SampleOps.b)))
        var badTag = OpCodec.encode([delete])
        let tag = badTag.count - 1 - 1 - 8
        #expect(badTag[tag] == 2)
        badTag[tag] = 3
        #expect(throws: DecodingError.self) { try OpCodec.layout(of: badTag, at: 1) }
    }
}

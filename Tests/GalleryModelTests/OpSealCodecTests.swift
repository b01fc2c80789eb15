@testable import GalleryModel
import Testing

/// The seal of a signed op (protocol.md section 7.3): kind bit 7, then flags, key claim and
/// signature after the body, in `ops` and `ops_compact` alike; no part of the op's identity.
@Suite("Op seal codec")
struct OpSealCodecTests {
    static let replica = ReplicaID(0x0102_0304_0506_0708)
    static let key = (0..<32).map { UInt8($0) }
    static let signature = (0..<64).map { UInt8(200 - $0) }

    /// A first op with a key claim and a signature, and a later one with a signature only.
    static var sealedOps: [Op] {
        var first = Op(id: OpID(counter: 1, replica: replica), previous: 0, action: .createGallery(name: "g"))
        first.seal = OpSeal(keyClaim: OpSeal.KeyClaim(publicKey: key, salt: 0xABCD), signature: signature)
        var second = Op(id: OpID(counter: 2, replica: replica), previous: 1,
                        action: .insert(gallery: "g", after: nil, before: nil, items: [.titled("x")]))
        second.seal = OpSeal(signature: signature)
        let third = Op(id: OpID(counter: 3, replica: replica), previous: 2, action: .delete(item: second.id))
        return [first, second, third]
    }

    @Test("Seals round-trip in ops and ops_compact; the transcoder copies them as they are")
    func roundTrip() throws {
        let ops = Self.sealedOps
        let canonical = OpCodec.encode(ops)
        #expect(try OpCodec.decode(canonical) == ops)
        // Kind bit 7 marks the two sealed ops; the flags follow each body.
        #expect(canonical[1] == 0x81)
        var sender = CompactOpTables(), receiver = CompactOpTables()
        #expect(try OpCodec.decodeCompact(OpCodec.encodeCompact(ops, tables: &sender), tables: &receiver) == ops)
        var transcoder = CompactOpTables(), reader = CompactOpTables()
        let batches = try OpCodec.transcodeCompactBatches(canonical, maximumBytes: 1 << 20, tables: &transcoder)
        var transcoded: [Op] = []
        for batch in batches {
            guard case .compact(let payload) = batch else {
                Issue.record("a canonical batch")
                continue
            }
            transcoded += try OpCodec.decodeCompact(payload, tables: &reader)
        }
        #expect(transcoded == ops)
        // The seal adds its bytes and nothing else: 1 + 32 + 8 + 64, then 1 + 64.
        let unsealed = OpCodec.encode(ops.map(\.unsealed))
        #expect(canonical.count == unsealed.count + 105 + 65)
    }

    @Test("Bad seals are refused: no flags, unknown flags, a key claim on an op that is not its replica's first, cut short")
    func badSeals() {
        var bytes = OpCodec.encode([Self.sealedOps[1]])
        let flags = bytes.count - 65
        #expect(bytes[flags] == 0x02)
        for bad: UInt8 in [0x00, 0x04, 0x83] {
            bytes[flags] = bad
            #expect(throws: DecodingError.self) { try OpCodec.decode(bytes) }
        }
        bytes[flags] = 0x03
        #expect(throws: DecodingError.self) { try OpCodec.decode(bytes) }
        var cut = OpCodec.encode([Self.sealedOps[0]])
        cut.removeLast()
        #expect(throws: DecodingError.self) { try OpCodec.decode(cut) }
    }

    @Test("A copy with or without a seal is the same op: a duplicate, never a second version")
    func sealIsNoPartOfIdentity() throws {
        var replica = Replica(id: ReplicaID(99))
        let ops = Self.sealedOps
        for op in ops { #expect(replica.receive(op, from: 1) == .applied(released: 0)) }
        for op in ops {
            #expect(replica.receive(op.unsealed, from: 2) == .duplicate)
            var resealed = op
            resealed.seal = OpSeal(signature: Self.signature.reversed())
            #expect(replica.receive(resealed, from: 2) == .duplicate)
        }
        var changed = ops[1]
        changed.action = .insert(gallery: "g", after: nil, before: nil, items: [.titled("y")])
        #expect(replica.receive(changed, from: 2) == .rejected(.divergentOp(changed.id)))
    }
}

@testable import GalleryModel
import Testing

/// The compact op form of `ops_compact` (protocol.md, section 7, "Compact ops"): round trips over
/// several payloads with the tables kept in step, the sizes it promises, full tables, and clean
/// refusals of bad input.
@Suite("Compact op codec")
struct CompactOpCodecTests {
    static let a = ReplicaID(0xA1), b = ReplicaID(0xB2), c = ReplicaID(0xC3)

    /// Every op kind and every reference form (`SampleOps.everyKind`).
    static func sampleOps() throws -> [Op] {
        try SampleOps.everyKind()
    }

    @Test("Ops round-trip over several payloads, the two sides' tables kept in step")
    func roundTrip() throws {
        let ops = try Self.sampleOps()
        var sender = CompactOpTables(), receiver = CompactOpTables()
        var decoded: [Op] = []
        // One op per payload, then all of them again in one: indices refer to earlier payloads.
        for op in ops {
            decoded += try OpCodec.decodeCompact(OpCodec.encodeCompact([op], tables: &sender), tables: &receiver)
            #expect(sender.replicas == receiver.replicas && sender.galleries == receiver.galleries)
        }
        #expect(decoded == ops)
        let again = OpCodec.encodeCompact(ops, tables: &sender)
        #expect(try OpCodec.decodeCompact(again, tables: &receiver) == ops)
        #expect(sender.replicas == [Self.a, Self.c, Self.b])
        #expect(sender.galleries == ["g", "ünïcode gallery"])
        #expect(receiver.replicas == sender.replicas && receiver.galleries == sender.galleries)
        // Once every name is known, each replica ID costs 1 byte instead of 8, each gallery 1
        // byte instead of its string.
        let canonical = OpCodec.encode(ops).count
        #expect(again.count <= canonical - 7 * ops.count, "\(again.count) bytes against \(canonical)")
    }

    @Test("Known bytes: a new replica is 0 then its u64, a known one its index + 1; a gallery likewise")
    func knownBytes() {
        let replica = ReplicaID(0x0102_0304_0506_0708)
        let delete = Op(id: OpID(counter: 300, replica: replica), previous: 299,
                        action: .delete(item: OpID(counter: 298, replica: replica)))
        var tables = CompactOpTables()
        var writer = ByteWriter()
        OpCodec.encode(delete, into: &writer, names: &tables)
        #expect(writer.bytes == [0x04, 0xAC, 0x02, 0x00, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x01, 0x01, 0x02])
        writer = ByteWriter()
        OpCodec.encode(delete, into: &writer, names: &tables)
        #expect(writer.bytes == [0x04, 0xAC, 0x02, 0x01, 0x01, 0x01, 0x02], "7 bytes, against 14 canonical")
        let move = Op(id: OpID(counter: 301, replica: replica), previous: 300,
                      action: .move(item: OpID(counter: 2, replica: Self.a), gallery: "trip", after: nil, before: nil))
        writer = ByteWriter()
        OpCodec.encode(move, into: &writer, names: &tables)
        #expect(writer.bytes == [0x03, 0xAD, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0xA1, 0, 0, 0, 0, 0, 0, 0,
                                 0x00, 0x04, 0x74, 0x72, 0x69, 0x70, 0x00, 0x00])
        writer = ByteWriter()
        OpCodec.encode(move, into: &writer, names: &tables)
        #expect(writer.bytes == [0x03, 0xAD, 0x02, 0x01, 0x01, 0x02, 0x02, 0x02, 0x01, 0x00, 0x00])
    }

    /// An op of `replica` that names gallery `gallery`: a one-item insert.
    static func insert(by replica: ReplicaID, into gallery: String) -> Op {
        Op(id: OpID(counter: 1, replica: replica), previous: 0,
           action: .insert(gallery: gallery, after: nil, before: nil, items: [.titled("x")]))
    }

    @Test("Full tables: new names are written inline every time and never appended, on both sides")
    func fullTables() throws {
        let replicas = (0..<CompactOpTables.replicaCapacity + 3).map { ReplicaID(UInt64(0x1000 + $0)) }
        let galleries = (0..<CompactOpTables.galleryCapacity + 3).map { "gallery \($0)" }
        let ops = replicas.indices.map { Self.insert(by: replicas[$0], into: galleries[$0 % galleries.count]) }
        var sender = CompactOpTables(), receiver = CompactOpTables()
        for chunk in stride(from: 0, to: ops.count, by: 500).map({ Array(ops[$0..<min($0 + 500, ops.count)]) }) {
            #expect(try OpCodec.decodeCompact(OpCodec.encodeCompact(chunk, tables: &sender), tables: &receiver) == chunk)
        }
        #expect(sender.replicas.count == CompactOpTables.replicaCapacity && sender.galleries.count == CompactOpTables.galleryCapacity)
        #expect(receiver.replicas == sender.replicas && receiver.galleries == sender.galleries)
        // A replica past the capacity costs 0 and its 8 bytes each time; one in the table, its index.
        let outside = Self.insert(by: replicas.last!, into: galleries[0])
        let first = OpCodec.encodeCompact([outside], tables: &sender)
        let second = OpCodec.encodeCompact([outside], tables: &sender)
        // Its replica: 9 bytes instead of 8; its gallery, in the table: 1 byte instead of 10.
        #expect(first == second && first.count == OpCodec.encode([outside]).count + 1 - 9, "\(first.count) bytes")
        let inside = OpCodec.encodeCompact([Self.insert(by: replicas[5], into: galleries[5])], tables: &sender)
        #expect(inside.count < first.count - 7)
        #expect(try OpCodec.decodeCompact(first, tables: &receiver) == [outside])
        #expect(try OpCodec.decodeCompact(second, tables: &receiver) == [outside])
        #expect(receiver.replicas.count == CompactOpTables.replicaCapacity)
        // Back to back with the canonical form: the bytes differ only in the names.
        #expect(try OpCodec.decode(OpCodec.encode(ops)) == ops)
    }

    @Test("An index past the table, a truncation, bytes left over and unknown tags are refused cleanly")
    func malformed() throws {
        let ops = try Self.sampleOps()
        var sender = CompactOpTables()
        let bytes = OpCodec.encodeCompact(ops, tables: &sender)
        for length in 0..<bytes.count {
            var receiver = CompactOpTables()
            #expect(throws: DecodingError.self) { try OpCodec.decodeCompact(Array(bytes[..<length]), tables: &receiver) }
        }
        var receiver = CompactOpTables()
        #expect(throws: DecodingError.trailingBytes(1)) { try OpCodec.decodeCompact(bytes + [0], tables: &receiver) }
        // The same payload again, decoded with empty tables: its indices point past them.
        let next = OpCodec.encodeCompact(ops, tables: &sender)
        receiver = CompactOpTables()
        #expect(throws: DecodingError.invalidValue("replica index 1 past a table of 0")) {
            try OpCodec.decodeCompact(next, tables: &receiver)
        }
        // A gallery index past the table: a one-op payload naming gallery 2 of a table of 1.
        let insert: [UInt8] = [0x01, 0x02, 0x01, 0x00, 0xA1, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02, 0x00, 0x00, 0x01, 0x00, 0x00]
        receiver = CompactOpTables()
        #expect(throws: DecodingError.invalidValue("gallery index 2 past a table of 0")) {
            try OpCodec.decodeCompact(insert, tables: &receiver)
        }
        // Every byte changed to every value: decoded or refused, never a crash.
        for index in bytes.indices {
            for value: UInt8 in [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF] {
                var mutated = bytes
                mutated[index] = value
                var tables = CompactOpTables()
                _ = try? OpCodec.decodeCompact(mutated, tables: &tables)
            }
        }
    }

    @Test("The bound on an op's size applies to its canonical encoding, whatever its compact size")
    func boundsOnCanonicalSize() throws {
        // 4,096 items, each with a title and an origin in another replica: 20 bytes each in the
        // canonical form (over 64,512 in all), 13 once the other replica is in the table.
        let items = (0..<4_096).map { _ in
            ItemDraft(fields: [.title: .text("abc"), .origin: .id(OpID(counter: 5, replica: Self.c))])
        }
        let op = Op(id: OpID(counter: 1, replica: Self.a), previous: 0,
                    action: .insert(gallery: "g", after: nil, before: nil, items: items))
        let canonical = OpCodec.encodedSize(of: op)
        #expect(canonical > FieldLimits.maxEncodedOpSize)
        var sender = CompactOpTables(), receiver = CompactOpTables()
        let compact = OpCodec.encodeCompact([op], tables: &sender)
        #expect(compact.count < FieldLimits.maxEncodedOpSize)
        let error = #expect(throws: DecodingError.self) { try OpCodec.decodeCompact(compact, tables: &receiver) }
        guard case .outOfBounds(let reason)? = error else {
            Issue.record("not refused as out of bounds: \(String(describing: error))")
            return
        }
        #expect(reason.contains("op of \(canonical) bytes"), "\(reason)")
        // Within the bound, the same op of fewer items decodes.
        let smaller = Op(id: op.id, previous: 0, action: .insert(gallery: "g", after: nil, before: nil, items: Array(items.prefix(3_000))))
        var smallSender = CompactOpTables(), smallReceiver = CompactOpTables()
        let payload = OpCodec.encodeCompact([smaller], tables: &smallSender)
        #expect(try OpCodec.decodeCompact(payload, tables: &smallReceiver) == [smaller])
    }

    @Test("Batches stay within the size; an op whose compact form alone is over it goes canonical, its names rolled back")
    func batches() throws {
        let ops = try Self.sampleOps()
        var sender = CompactOpTables(), receiver = CompactOpTables()
        let batches = OpCodec.encodeCompactBatches(ops + ops, maximumBytes: 200, tables: &sender)
        #expect(batches.count > 4)
        var decoded: [Op] = []
        for batch in batches {
            guard case .compact(let payload) = batch else {
                Issue.record("a canonical batch: \(batch)")
                continue
            }
            #expect(payload.count <= 200)
            decoded += try OpCodec.decodeCompact(payload, tables: &receiver)
        }
        #expect(decoded == ops + ops)
        #expect(receiver.replicas == sender.replicas && receiver.galleries == sender.galleries)

        // 50 items whose origins name 50 new replicas: 51 bytes longer compact than canonical
        // while the tables lack them.
        let items = (0..<50).map { ItemDraft(fields: [.origin: .id(OpID(counter: 1, replica: ReplicaID(UInt64(0x5000 + $0))))]) }
        let wide = Op(id: OpID(counter: 10, replica: ReplicaID(0x77)), previous: 9,
                      action: .insert(gallery: "new", after: nil, before: nil, items: items))
        let canonical = OpCodec.encode([wide])
        var fresh = CompactOpTables(), freshReceiver = CompactOpTables()
        let split = OpCodec.encodeCompactBatches([ops[0], wide, ops[1]], maximumBytes: canonical.count + 10, tables: &fresh)
        #expect(split.count == 3)
        guard split.count == 3, case .compact(let before) = split[0], case .canonical(let alone) = split[1],
              case .compact(let after) = split[2] else {
            Issue.record("batches: \(split)")
            return
        }
        #expect(alone == canonical)
        #expect(try OpCodec.decodeCompact(before, tables: &freshReceiver) == [ops[0]])
        #expect(try OpCodec.decode(alone) == [wide])
        #expect(try OpCodec.decodeCompact(after, tables: &freshReceiver) == [ops[1]])
        #expect(fresh.replicas == freshReceiver.replicas && fresh.galleries == freshReceiver.galleries)
        #expect(!fresh.replicas.contains(ReplicaID(0x77)))
    }
}

extension CompactOpCodecTests {
    @Test("Transcoding canonical payloads gives the bytes of encoding the ops, batches and tables alike")
    func transcoding() throws {
        let ops = try Self.sampleOps()
        for maximumBytes in [60, 200, 1 << 20] {
            var encoded = CompactOpTables(), transcoded = CompactOpTables()
            // The same ops three times over: new names, then known ones.
            for _ in 0..<3 {
                for payload in OpCodec.encodeBatches(ops, maximumBytes: 300) {
                    let expected = OpCodec.encodeCompactBatches(try OpCodec.decode(payload), maximumBytes: maximumBytes, tables: &encoded)
                    #expect(try OpCodec.transcodeCompactBatches(payload, maximumBytes: maximumBytes, tables: &transcoded) == expected)
                    #expect(encoded.replicas == transcoded.replicas && encoded.galleries == transcoded.galleries)
                }
            }
        }
        var tables = CompactOpTables()
        let payload = OpCodec.encode(ops)
        for length in 0..<payload.count {
            #expect(throws: DecodingError.self) {
                try OpCodec.transcodeCompactBatches(Array(payload[..<length]), maximumBytes: 1 << 20, tables: &tables)
            }
        }
        #expect(throws: DecodingError.trailingBytes(1)) {
            try OpCodec.transcodeCompactBatches(payload + [0], maximumBytes: 1 << 20, tables: &tables)
        }
    }
}

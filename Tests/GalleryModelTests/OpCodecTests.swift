@testable import GalleryModel
import GallerySimulation
import Testing

/// The binary op encoding: exact round trips, known bytes, and clean errors on bad input.
@Suite("Op codec")
struct OpCodecTests {
    /// A replica's log with every kind of op, every field type and reference form, placeholders
    /// and cross-gallery moves (`SampleOps.everyKind`).
    private func sampleOps() throws -> [Op] {
        try SampleOps.everyKind()
    }

    @Test("Ops round-trip exactly")
    func roundTrip() throws {
        let ops = try sampleOps()
        let bytes = OpCodec.encode(ops)
        #expect(try OpCodec.decode(bytes) == ops)
        #expect(OpCodec.encode(try OpCodec.decode(bytes)) == bytes)
    }

    @Test("A delete of an earlier op of the same replica encodes in 14 bytes")
    func knownBytes() throws {
        let op = Op(
            id: OpID(counter: 300, replica: ReplicaID(0x0102_0304_0506_0708)), previous: 299,
            action: .delete(item: OpID(counter: 298, replica: ReplicaID(0x0102_0304_0506_0708))))
        var writer = ByteWriter()
        OpCodec.encode(op, into: &writer)
        #expect(writer.bytes == [
            0x04, 0xAC, 0x02, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x01, 0x01, 0x02,
        ])
    }

    @Test("Varints: boundaries round-trip; overlong, overflowing and truncated ones are refused")
    func varints() throws {
        for value: UInt64 in [0, 1, 127, 128, 16_383, 16_384, UInt64(UInt32.max), .max] {
            var writer = ByteWriter()
            writer.varint(value)
            var reader = ByteReader(writer.bytes)
            #expect(try reader.varint() == value)
            #expect(reader.isAtEnd)
        }
        for bad: [UInt8] in [[0x80, 0x00], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02], [0x80],
                             Array(repeating: 0xFF, count: 11)] {
            var reader = ByteReader(bad)
            #expect(throws: DecodingError.self) { try reader.varint() }
        }
        for value: Int64 in [0, -1, 1, .min, .max] {
            var writer = ByteWriter()
            writer.zigzag(value)
            var reader = ByteReader(writer.bytes)
            #expect(try reader.zigzag() == value)
        }
    }

    @Test("Every truncation of a valid encoding is refused cleanly")
    func truncations() throws {
        let bytes = OpCodec.encode(try sampleOps())
        for length in 0..<bytes.count {
            #expect(throws: DecodingError.self) { try OpCodec.decode(Array(bytes[..<length])) }
        }
        #expect(throws: DecodingError.trailingBytes(1)) { try OpCodec.decode(bytes + [0]) }
    }

    @Test("Seeded random mutations and random bytes end in a value or a clean error")
    func mutations() throws {
        let valid = OpCodec.encode(try sampleOps())
        var generator = SeededGenerator(seed: 2026)
        var refused = 0
        for round in 0..<20_000 {
            var bytes = valid
            if round % 10 == 0 {
                bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            } else {
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                    case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: Int.random(in: 0...bytes.count, using: &generator))
                    default: if bytes.count > 1 { bytes.remove(at: Int.random(in: 0..<bytes.count, using: &generator)) }
                    }
                }
            }
            do {
                let ops = try OpCodec.decode(bytes)
                // Whatever decodes re-encodes to bytes that decode to the same ops.
                #expect(try OpCodec.decode(OpCodec.encode(ops)) == ops || ops.contains { op in
                    if case .insert(_, _, _, let items) = op.action {
                        return items.contains { $0.fields.values.contains { $0.number?.isNaN == true } }
                    }
                    if case .update(_, _, let value) = op.action { return value.number?.isNaN == true }
                    return false
                })
            } catch {
                refused += 1
            }
        }
        #expect(refused > 10_000)
    }

    @Test("A huge declared count is refused without allocating for it")
    func hugeCounts() {
        #expect(throws: DecodingError.limitExceeded) { try OpCodec.decode([0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) }
        var writer = ByteWriter()
        writer.varint(1)
        writer.byte(2)            // insert
        writer.varint(1)
        writer.fixed64(7)
        writer.varint(1)
        writer.string("g")
        writer.byte(0)
        writer.byte(0)
        writer.varint(1 << 40)    // item count
        #expect(throws: DecodingError.limitExceeded) { try OpCodec.decode(writer.bytes) }
    }
}

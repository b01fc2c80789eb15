/// The whole state of a replica in a binary form that loads without replaying its ops: what a
/// node's snapshot file holds.
///
/// ```
/// state     = version:u16 id:u64 clock:u64 table forest items fields stamps galleries registers log
///             (version 1 had no `registers`: it is still read)
/// items     = n:varint key:u64*n slot:i32*n flags:u8*n title*   flags: 1 deleted, 2 placeholder,
///                                                               4 titled (one title per titled item)
/// fields    = n:varint (item:i32 k:u8 (field:u8 value)*k)*n     sorted by item, then field
/// stamps    = n:varint key:u64*n stamp:u64*n                    sorted by key
/// galleries = n:varint string*n                                 in order of creation here
/// registers = n:varint (gallery:u32 flags:u8 [title:u64 string] [live:u64])*n   sorted by gallery;
///             flags: 1 title stamp (then the stamp and the title, empty for none), 2 live stamp,
///             4 deleted (`GalleryRegister`)
/// value     = 0 none | 1 string | 2 fixed64 (IEEE 754 bits) | 3 zigzag varint | 4 counter:varint replica:fixed64
/// ```
/// Integers are little-endian, strings `length:varint` then UTF-8. `table`, `forest` and `log`
/// are written by `ReplicaTable`, `SlotForest` and `OpLog` as they are, arena by arena, so a
/// decoded replica is the same value as the encoded one (the buffer of early ops is not kept: those
/// ops were never applied, and peers send them again). Encoding the decoded replica gives the same
/// bytes.
extension Replica {
    /// The version of the layout above; `init(decodingState:)` reads only this one.
    package static let stateFormatVersion: UInt16 = 2

    /// The replica's state, encoded.
    ///
    /// - Complexity: O(n + b) for n slots and items and b bytes of op log.
    package func encodedState() -> [UInt8] {
        var writer = ByteWriter(capacity: log.byteCount + slots.nodes.count * 40 + items.count * 32 + 4096)
        writer.fixed16(Self.stateFormatVersion)
        writer.fixed64(id.rawValue)
        writer.fixed64(clock)
        table.encodeState(into: &writer)
        slots.encodeState(into: &writer)

        writer.varint(UInt64(items.count))
        writer.integers(items.map(\.key.raw))
        writer.integers(items.map(\.slot))
        writer.integers(items.map { item -> UInt8 in
            (item.isDeleted ? 1 : 0) | (item.isPlaceholder ? 2 : 0) | (item.title == nil ? 0 : 4)
        })
        for item in items { if let title = item.title { writer.string(title) } }

        writer.varint(UInt64(extraFields.count))
        for (item, fields) in extraFields.sorted(by: { $0.key < $1.key }) {
            writer.fixed32(UInt32(bitPattern: item))
            writer.byte(UInt8(fields.count))
            for (field, value) in fields.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                writer.byte(field.rawValue)
                Self.encodeStateValue(value, into: &writer)
            }
        }

        let stamps = fieldStamps.sorted { $0.key < $1.key }
        writer.varint(UInt64(stamps.count))
        writer.integers(stamps.map(\.key))
        writer.integers(stamps.map(\.value.raw))

        writer.varint(UInt64(galleryNames.count))
        for name in galleryNames { writer.string(name) }
        encodeGalleryRegisters(into: &writer)

        log.encodeState(into: &writer)
        return writer.bytes
    }

    /// Restores a replica from `encodedState()`: the same galleries, items, version vector, op log
    /// and Lamport clock, so that its next op IDs are the ones the encoded replica would have used.
    ///
    /// Indices are checked to be in range (so that no later call traps on a damaged state); the
    /// shape of the sequence trees and the encoded ops of the log are trusted, as the bytes are the
    /// node's own and a checksum guards them on disk.
    ///
    /// - Parameters:
    ///   - bytes: The encoded state from `offset` to the end.
    ///   - bufferLimit: The most early ops held, as in `init(id:bufferLimit:)`.
    /// - Complexity: O(n + b) for n slots and items and b bytes of op log.
    package init(decodingState bytes: [UInt8], offset: Int = 0, bufferLimit: Int = 100_000) throws(DecodingError) {
        var reader = ByteReader(bytes, offset: offset)
        let version = try reader.fixed16()
        guard version == 1 || version == Self.stateFormatVersion else { throw .invalidValue("state format version \(version)") }
        self.id = ReplicaID(try reader.fixed64())
        self.buffer = CausalBuffer(limits: BufferLimits(ops: bufferLimit))
        clock = try reader.fixed64()
        // Counters fit in 48 bits (`PackedID`); a larger clock is damage, and would overflow the next op's counter.
        guard clock <= PackedID.maxCounter else { throw .invalidValue("clock beyond 2^48") }
        table = try ReplicaTable(decoding: &reader)
        guard table.ids.first == id else { throw .invalidValue("state of another replica") }

        // Items come after the slots in the encoding but their count bounds the slots' item indices:
        // read the slots with a provisional bound, then check it.
        slots = try SlotForest(decoding: &reader, itemCount: Int(Int32.max))
        let itemCount = try reader.count(limit: reader.remaining / 13)
        let keys = try reader.integers(itemCount, as: UInt64.self)
        let itemSlots = try reader.integers(itemCount, as: Int32.self)
        let flags = try reader.integers(itemCount, as: UInt8.self)
        items.reserveCapacity(itemCount)
        for index in 0..<itemCount {
            let title = flags[index] & 4 != 0 ? try reader.string(limit: reader.remaining) : nil
            guard itemSlots[index] >= 0, Int(itemSlots[index]) < slots.nodes.count else {
                throw .invalidValue("snapshot item slot")
            }
            items.append(ItemRecord(
                key: PackedID(raw: keys[index]), title: title, slot: itemSlots[index],
                isDeleted: flags[index] & 1 != 0, isPlaceholder: flags[index] & 2 != 0))
        }
        guard slots.nodes.allSatisfy({ Int($0.item) < itemCount }) else { throw .invalidValue("snapshot slot item") }
        guard table.slotsFit(below: slots.nodes.count) else { throw .invalidValue("snapshot slot run") }

        let fieldCount = try reader.count(limit: reader.remaining / 5)
        for _ in 0..<fieldCount {
            let item = Int32(bitPattern: try reader.fixed32())
            guard item >= 0, Int(item) < itemCount else { throw .invalidValue("snapshot field item") }
            var fields: [ItemField: FieldValue] = [:]
            for _ in 0..<(try reader.byte()) {
                let raw = try reader.byte()
                guard let field = ItemField(rawValue: raw), field != .title else { throw .unknownTag("field", raw) }
                let value = try Self.decodeStateValue(from: &reader)
                guard field.accepts(value) else { throw .invalidValue("snapshot value of \(field)") }
                fields[field] = value
            }
            extraFields[item] = fields
        }

        let stampCount = try reader.count(limit: reader.remaining / 16)
        let stampKeys = try reader.integers(stampCount, as: UInt64.self)
        let stampValues = try reader.integers(stampCount, as: UInt64.self)
        fieldStamps.reserveCapacity(stampCount)
        for index in 0..<stampCount {
            let stamp = PackedID(raw: stampValues[index])
            guard stamp.replicaIndex < table.ids.count else { throw .invalidValue("snapshot field stamp") }
            fieldStamps[stampKeys[index]] = stamp
        }

        let galleryCount = try reader.count(limit: reader.remaining)
        for index in 0..<galleryCount {
            let name = try reader.string(limit: 255)
            galleryNames.append(name)
            galleryIndex[name] = Int32(index)
        }
        guard galleryCount == slots.galleryCount else { throw .invalidValue("snapshot gallery count") }
        if version >= 2 { try decodeGalleryRegisters(from: &reader) }

        log = try OpLog(decoding: &reader)
        guard reader.isAtEnd else { throw .trailingBytes(reader.remaining) }
    }

    /// The applied ops at log positions `range` (in the order they were applied) as `OpCodec`
    /// batches of at most `maximumBytes` each, unless one op is larger: what a node appends to its
    /// compacted op file.
    ///
    /// - Complexity: O(k + b) for k ops of b bytes.
    package func encodedOps(atLogPositions range: Range<Int>, maximumBytes: Int) -> [[UInt8]] {
        precondition(range.lowerBound >= 0 && range.upperBound <= log.count, "log positions out of range")
        return log.encodedBatches(positions: range, maximumBytes: maximumBytes)
    }

    /// Writes the registers of the galleries renamed or deleted.
    private func encodeGalleryRegisters(into writer: inout ByteWriter) {
        writer.varint(UInt64(galleryRegisters.count))
        for (gallery, register) in galleryRegisters.sorted(by: { $0.key < $1.key }) {
            writer.fixed32(UInt32(bitPattern: gallery))
            writer.byte((register.titleStamp == nil ? 0 : 1) | (register.liveStamp == nil ? 0 : 2) | (register.isDeleted ? 4 : 0))
            if let stamp = register.titleStamp {
                writer.fixed64(stamp.raw)
                writer.string(register.title ?? "")
            }
            if let stamp = register.liveStamp { writer.fixed64(stamp.raw) }
        }
    }

    /// Reads what `encodeGalleryRegisters(into:)` wrote, checking every index.
    private mutating func decodeGalleryRegisters(from reader: inout ByteReader) throws(DecodingError) {
        let count = try reader.count(limit: reader.remaining / 5)
        func stamp() throws(DecodingError) -> PackedID {
            let stamp = PackedID(raw: try reader.fixed64())
            guard stamp.replicaIndex < table.ids.count else { throw .invalidValue("snapshot gallery stamp") }
            return stamp
        }
        for _ in 0..<count {
            let gallery = Int32(bitPattern: try reader.fixed32())
            guard gallery >= 0, Int(gallery) < galleryNames.count else { throw .invalidValue("snapshot register gallery") }
            let flags = try reader.byte()
            guard flags < 8 else { throw .invalidValue("snapshot register flags") }
            var register = GalleryRegister()
            if flags & 1 != 0 {
                register.titleStamp = try stamp()
                let title = try reader.string(limit: 255)
                register.title = title.isEmpty ? nil : title
            }
            if flags & 2 != 0 { register.liveStamp = try stamp() }
            register.isDeleted = flags & 4 != 0
            galleryRegisters[gallery] = register
        }
        refreshShownGalleries()
    }

    /// Writes a field value.
    private static func encodeStateValue(_ value: FieldValue, into writer: inout ByteWriter) {
        switch value {
        case .none:
            writer.byte(0)
        case .text(let text):
            writer.byte(1)
            writer.string(text)
        case .number(let number):
            writer.byte(2)
            writer.fixed64(number.bitPattern)
        case .integer(let integer):
            writer.byte(3)
            writer.zigzag(integer)
        case .id(let target):
            writer.byte(4)
            writer.varint(target.counter)
            writer.fixed64(target.replica.rawValue)
        }
    }

    /// Reads what `encodeStateValue(_:into:)` wrote.
    private static func decodeStateValue(from reader: inout ByteReader) throws(DecodingError) -> FieldValue {
        let tag = try reader.byte()
        switch tag {
        case 0: return .none
        case 1: return .text(try reader.string(limit: reader.remaining))
        case 2: return .number(Double(bitPattern: try reader.fixed64()))
        case 3: return .integer(try reader.zigzag())
        case 4: return .id(OpID(counter: try reader.varint(), replica: ReplicaID(try reader.fixed64())))
        default: throw .unknownTag("value tag", tag)
        }
    }
}

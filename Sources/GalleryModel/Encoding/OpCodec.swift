/// The binary encoding of ops, shared by the wire protocol and the op log on disk.
///
/// ```
/// op      = kind:u8 counter:varint replica:fixed64 gap:varint body
///           (gap = counter - previous, so previous = counter - gap)
/// body    = createGallery: string
///         | insert: string(gallery) ref(after) ref(before) count:varint draft*count
///         | move:   ref(item) string(gallery) ref(after) ref(before)
///         | delete, commit: ref(item)
///         | update: ref(item) field:u8 value
///         | renameGallery: string(gallery) string(new name)
///         | deleteGallery: string(gallery)
/// ref     = 0 (none) | 1 delta:varint (same replica, counter - delta) | 2 counter:varint replica:fixed64
/// draft   = flags:u8 (bit 0: placeholder) count:varint (field:u8 value)*count
/// value   = 0 (none) | 1 string | 2 fixed64 (IEEE 754 bits) | 3 zigzag varint | 4 ref
/// string  = length:varint UTF-8 bytes
/// ```
/// Kinds: 1 createGallery, 2 insert, 3 move, 4 delete, 5 update, 6 commit, 7 renameGallery,
/// 8 deleteGallery (gallery names of 7 and 8 are strings in compact frames too). Fields use the raw
/// values of `ItemField`. References to earlier ops of the same replica take two or three bytes.
///
/// Replica IDs and gallery names are written and read through an `OpNameCoding`: in full here,
/// by index into a connection's tables for `ops_compact` frames (`OpCodec+Compact.swift`).
///
/// `decode` refuses, besides malformed bytes, ops outside the bounds of `FieldLimits`
/// (`DecodingError.outOfBounds`): what a peer sends. The node's own op files are read with
/// `checkingBounds: false`, so that ops stored by an earlier version, which had no such bounds,
/// still load.
package enum OpCodec {
    /// The most items the encoding of one insert op allows (`FieldLimits.itemsPerInsert` bounds
    /// the ops made and received now).
    package static let maxItemsPerInsert = 65_536
    /// The longest string the encoding allows in a field value (`FieldLimits` bounds each field).
    package static let maxStringBytes = 65_535

    /// Encodes ops as a varint count followed by each op.
    package static func encode(_ ops: [Op]) -> [UInt8] {
        var writer = ByteWriter(capacity: ops.count * 24)
        writer.varint(UInt64(ops.count))
        for op in ops { encode(op, into: &writer) }
        return writer.bytes
    }

    /// Encodes ops as consecutive batches in the format of `encode(_:)`, each at most
    /// `maximumBytes` long unless a single op is longer.
    package static func encodeBatches(_ ops: [Op], maximumBytes: Int) -> [[UInt8]] {
        var batches: [[UInt8]] = []
        var body = ByteWriter()
        var count = 0
        func flush() {
            guard count > 0 else { return }
            var batch = ByteWriter(capacity: body.bytes.count + 10)
            batch.varint(UInt64(count))
            batch.append(body.bytes)
            batches.append(batch.bytes)
            body = ByteWriter()
            count = 0
        }
        for op in ops {
            var single = ByteWriter(capacity: 64)
            encode(op, into: &single)
            if count > 0 && body.bytes.count + single.bytes.count + 10 > maximumBytes { flush() }
            body.append(single.bytes)
            count += 1
        }
        flush()
        return batches
    }

    /// Decodes what `encode(_:)` wrote; the input must end after the last op. With
    /// `checkingBounds` (the default), an op outside `FieldLimits` throws `.outOfBounds`.
    package static func decode(_ bytes: [UInt8], checkingBounds: Bool = true) throws(DecodingError) -> [Op] {
        var reader = ByteReader(bytes)
        // Every op takes at least 11 bytes, which bounds the count by the input size.
        let count = try reader.count(limit: bytes.count / 11)
        var ops: [Op] = []
        ops.reserveCapacity(count)
        for _ in 0..<count { ops.append(try decode(from: &reader, checkingBounds: checkingBounds)) }
        guard reader.isAtEnd else { throw .trailingBytes(reader.remaining) }
        return ops
    }

    /// Appends one op; `maxSize` is `maxEncodedSize(of: op)` when the caller has it already.
    package static func encode(_ op: Op, into writer: inout ByteWriter, maxSize: Int? = nil) {
        writer.append(atMost: maxSize ?? maxEncodedSize(of: op)) { raw in encode(op, into: &raw) }
    }

    /// The exact encoded size of an op.
    ///
    /// - Complexity: O(b) for an op of b bytes (it is encoded).
    package static func encodedSize(of op: Op) -> Int {
        var writer = ByteWriter(capacity: maxEncodedSize(of: op))
        encode(op, into: &writer)
        return writer.bytes.count
    }

    /// An upper bound of the bytes one item adds to an insert op, exact but for the `origin`
    /// reference (counted at its longest form).
    ///
    /// - Complexity: O(f) for f fields.
    package static func maxEncodedSize(of draft: ItemDraft) -> Int {
        func varint(_ value: UInt64) -> Int { max(1, (64 - value.leadingZeroBitCount + 6) / 7) }
        var size = 1 + varint(UInt64(draft.fields.count))
        for value in draft.fields.values {
            size += 2
            switch value {
            case .none: break
            case .text(let text): size += varint(UInt64(text.utf8.count)) + text.utf8.count
            case .number: size += 8
            case .integer(let integer): size += varint(UInt64(bitPattern: (integer << 1) ^ (integer >> 63)))
            case .id: size += 19
            }
        }
        return size
    }

    /// An upper bound of the bytes of an insert op besides its items: header, gallery, anchors
    /// and item count.
    package static func maxInsertOverhead(gallery: String) -> Int {
        (1 + 10 + 8 + 10) + (10 + gallery.utf8.count) + 2 * 19 + 10
    }

    /// Why a field value cannot be encoded so that `decode` reads it back (a text longer than
    /// `maxStringBytes`, a reference to counter 0), or nil when it can.
    static func encodingProblem(with value: FieldValue) -> String? {
        switch value {
        case .text(let text) where text.utf8.count > maxStringBytes:
            "a text of \(text.utf8.count) bytes (the encoding allows \(maxStringBytes))"
        case .id(let id) where id.counter == 0:
            "a reference to counter 0"
        default:
            nil
        }
    }

    /// An upper bound of the encoded size of an op, cheap to compute.
    static func maxEncodedSize(of op: Op) -> Int {
        maxUnsealedSize(of: op) + (op.seal == nil ? 0 : OpSeal.maxEncodedBytes)
    }

    /// An upper bound of the encoded size of an op without its seal.
    private static func maxUnsealedSize(of op: Op) -> Int {
        let header = 1 + 10 + 8 + 10
        let reference = 19
        func string(_ text: String) -> Int { 10 + text.utf8.count }
        func value(_ value: FieldValue) -> Int {
            switch value {
            case .none: 1
            case .text(let text): 1 + string(text)
            case .number: 9
            case .integer: 11
            case .id: 1 + reference
            }
        }
        switch op.action {
        case .createGallery(let name), .deleteGallery(let name):
            return header + string(name)
        case .renameGallery(let name, let title):
            return header + string(name) + string(title)
        case .insert(let gallery, _, _, let items):
            var size = header + string(gallery) + 2 * reference + 10
            for item in items {
                size += 11
                for field in item.fields.values { size += 1 + value(field) }
            }
            return size
        case .move(_, let gallery, _, _):
            return header + 3 * reference + string(gallery)
        case .delete, .commit:
            return header + reference
        case .update(_, _, let field):
            return header + reference + 1 + value(field)
        }
    }

    /// Writes one op to any sink, in the canonical encoding.
    @inline(__always)
    static func encode(_ op: Op, into writer: inout some ByteSink) {
        var names = CanonicalOpNames()
        encode(op, into: &writer, names: &names)
    }

    /// Writes one op to any sink, its replica IDs and gallery names as `names` writes them.
    static func encode(_ op: Op, into writer: inout some ByteSink, names: inout some OpNameCoding, withSeal: Bool = true) {
        let kind: UInt8 = switch op.action {
        case .createGallery: 1
        case .insert: 2
        case .move: 3
        case .delete: 4
        case .update: 5
        case .commit: 6
        case .renameGallery: 7
        case .deleteGallery: 8
        }
        let sealed = withSeal && op.seal.map { !$0.isEmpty } ?? false
        writer.byte(sealed ? kind | sealedKindFlag : kind)
        writer.varint(op.id.counter)
        names.writeReplica(op.id.replica, into: &writer)
        writer.varint(op.id.counter &- op.previous)
        switch op.action {
        case .createGallery(let name), .deleteGallery(let name):
            writer.string(name)
        case .renameGallery(let name, let title):
            writer.string(name)
            writer.string(title)
        case .insert(let gallery, let after, let before, let items):
            names.writeGallery(gallery, into: &writer)
            reference(after, from: op.id, into: &writer, names: &names)
            reference(before, from: op.id, into: &writer, names: &names)
            writer.varint(UInt64(items.count))
            for item in items {
                writer.byte(item.isPlaceholder ? 1 : 0)
                writer.varint(UInt64(item.fields.values.count { $0 != .none }))
                if item.fields.count == 1, let (field, value) = item.fields.first {
                    // The common case (a title only) without a lookup per field.
                    if value != .none {
                        writer.byte(field.rawValue)
                        self.value(value, from: op.id, into: &writer, names: &names)
                    }
                } else if !item.fields.isEmpty {
                    for field in ItemField.allCases {
                        guard let value = item.fields[field], value != .none else { continue }
                        writer.byte(field.rawValue)
                        self.value(value, from: op.id, into: &writer, names: &names)
                    }
                }
            }
        case .move(let item, let gallery, let after, let before):
            reference(item, from: op.id, into: &writer, names: &names)
            names.writeGallery(gallery, into: &writer)
            reference(after, from: op.id, into: &writer, names: &names)
            reference(before, from: op.id, into: &writer, names: &names)
        case .delete(let item), .commit(let item):
            reference(item, from: op.id, into: &writer, names: &names)
        case .update(let item, let field, let value):
            reference(item, from: op.id, into: &writer, names: &names)
            writer.byte(field.rawValue)
            self.value(value, from: op.id, into: &writer, names: &names)
        }
        if sealed, let seal = op.seal { encode(seal, into: &writer) }
    }

    /// Reads one op; with `checkingBounds`, throws `.outOfBounds` for an op outside `FieldLimits`.
    package static func decode(from reader: inout ByteReader, checkingBounds: Bool = true) throws(DecodingError) -> Op {
        var names = CanonicalOpNames()
        return try decode(from: &reader, names: &names, checkingBounds: checkingBounds)
    }

    /// Reads one op whose replica IDs and gallery names `names` reads; with `checkingBounds`,
    /// throws `.outOfBounds` for an op outside `FieldLimits`, its size counted as the canonical
    /// encoding of the same op would be.
    static func decode(from reader: inout ByteReader, names: inout some OpNameCoding,
                       checkingBounds: Bool) throws(DecodingError) -> Op {
        let start = reader.offset
        var (op, sealed) = try decodeStructure(from: &reader, names: &names)
        let size = reader.offset - start + names.takeCanonicalSurplus()
        if sealed { op.seal = try decodeSeal(from: &reader, firstOfReplica: op.previous == 0) }
        if checkingBounds, let problem = FieldLimits.problem(with: op, encodedSize: size) {
            throw .outOfBounds("op \(op.id): \(problem)")
        }
        return op
    }

    /// Reads one op as the encoding allows it, without `FieldLimits`.
    private static func decodeStructure(from reader: inout ByteReader, names: inout some OpNameCoding) throws(DecodingError) -> (Op, sealed: Bool) {
        let flaggedKind = try reader.byte()
        let kind = flaggedKind & ~sealedKindFlag
        let counter = try reader.varint()
        guard counter > 0 else { throw .invalidValue("op counter 0") }
        let id = OpID(counter: counter, replica: try names.readReplica(from: &reader))
        let gap = try reader.varint()
        guard gap >= 1, gap <= counter else { throw .invalidValue("previous counter") }
        let action: Op.Action
        switch kind {
        case 1:
            action = .createGallery(name: try reader.string(limit: maxStringBytes))
        case 2:
            let gallery = try names.readGallery(from: &reader)
            let after = try reference(from: id, in: &reader, names: &names)
            let before = try reference(from: id, in: &reader, names: &names)
            let count = try reader.count(limit: min(maxItemsPerInsert, reader.remaining / 2))
            guard count > 0 else { throw .outOfBounds("an insert of 0 items (1 to 4,096)") }
            var items: [ItemDraft] = []
            items.reserveCapacity(count)
            for _ in 0..<count {
                let flags = try reader.byte()
                guard flags <= 1 else { throw .invalidValue("item flags") }
                let fieldCount = try reader.count(limit: ItemField.allCases.count)
                var fields: [ItemField: FieldValue] = [:]
                for _ in 0..<fieldCount {
                    let field = try self.field(from: &reader)
                    guard fields[field] == nil else { throw .invalidValue("field \(field) twice") }
                    let value = try value(from: id, in: &reader, names: &names)
                    guard value != .none else { throw .invalidValue("unset field in a new item") }
                    fields[field] = value
                }
                items.append(ItemDraft(isPlaceholder: flags == 1, fields: fields))
            }
            action = .insert(gallery: gallery, after: after, before: before, items: items)
        case 3:
            let item = try required(try reference(from: id, in: &reader, names: &names))
            let gallery = try names.readGallery(from: &reader)
            action = .move(
                item: item, gallery: gallery,
                after: try reference(from: id, in: &reader, names: &names),
                before: try reference(from: id, in: &reader, names: &names))
        case 4:
            action = .delete(item: try required(try reference(from: id, in: &reader, names: &names)))
        case 5:
            let item = try required(try reference(from: id, in: &reader, names: &names))
            let field = try self.field(from: &reader)
            action = .update(item: item, field: field, value: try value(from: id, in: &reader, names: &names))
        case 6:
            action = .commit(item: try required(try reference(from: id, in: &reader, names: &names)))
        case 7:
            let name = try reader.string(limit: maxStringBytes)
            action = .renameGallery(name: name, to: try reader.string(limit: maxStringBytes))
        case 8:
            action = .deleteGallery(name: try reader.string(limit: maxStringBytes))
        default:
            throw .unknownTag("op kind", kind)
        }
        return (Op(id: id, previous: counter - gap, action: action), flaggedKind & sealedKindFlag != 0)
    }

    // MARK: Parts

    private static func reference(_ target: OpID?, from id: OpID, into writer: inout some ByteSink,
                                  names: inout some OpNameCoding) {
        guard let target else {
            writer.byte(0)
            return
        }
        if target.replica == id.replica && target.counter < id.counter {
            writer.byte(1)
            writer.varint(id.counter - target.counter)
        } else {
            writer.byte(2)
            writer.varint(target.counter)
            names.writeReplica(target.replica, into: &writer)
        }
    }

    private static func reference(from id: OpID, in reader: inout ByteReader,
                                  names: inout some OpNameCoding) throws(DecodingError) -> OpID? {
        let tag = try reader.byte()
        switch tag {
        case 0:
            return nil
        case 1:
            let delta = try reader.varint()
            guard delta >= 1, delta < id.counter else { throw .invalidValue("reference delta") }
            return OpID(counter: id.counter - delta, replica: id.replica)
        case 2:
            let counter = try reader.varint()
            guard counter > 0 else { throw .outOfBounds("a reference to counter 0 (references name counters 1 and up)") }
            return OpID(counter: counter, replica: try names.readReplica(from: &reader))
        default:
            throw .unknownTag("reference tag", tag)
        }
    }

    private static func required(_ reference: OpID?) throws(DecodingError) -> OpID {
        guard let reference else { throw .invalidValue("missing item reference") }
        return reference
    }

    private static func field(from reader: inout ByteReader) throws(DecodingError) -> ItemField {
        let raw = try reader.byte()
        guard let field = ItemField(rawValue: raw) else { throw .unknownTag("field", raw) }
        return field
    }

    private static func value(_ value: FieldValue, from id: OpID, into writer: inout some ByteSink,
                              names: inout some OpNameCoding) {
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
            reference(target, from: id, into: &writer, names: &names)
        }
    }

    private static func value(from id: OpID, in reader: inout ByteReader,
                              names: inout some OpNameCoding) throws(DecodingError) -> FieldValue {
        let tag = try reader.byte()
        switch tag {
        case 0: return .none
        case 1: return .text(try reader.string(limit: maxStringBytes))
        case 2: return .number(Double(bitPattern: try reader.fixed64()))
        case 3: return .integer(try reader.zigzag())
        case 4: return .id(try required(try reference(from: id, in: &reader, names: &names)))
        default: throw .unknownTag("value tag", tag)
        }
    }
}

/// The compact form of ops carried by `ops_compact` frames (protocol.md, section 7, "Compact ops"):
/// the canonical encoding with every replica ID (`replica:u64` of the op header and of `0x02`
/// references) written `rep:varint` and every gallery name of an insert or a move written
/// `gal:varint`, by index into the tables of the connection's direction (`CompactOpTables`).
///
/// ```
/// payload = count:varint op*count           as in `ops`
/// rep     = 0 replica:u64                   a new replica ID (appended unless the table is full)
///         | k:varint (k >= 1)               entry k - 1 of the replica table
/// gal     = 0 name:string                   a new gallery name (appended unless the table is full)
///         | k:varint (k >= 1)               entry k - 1 of the gallery table
/// ```
///
/// A `createGallery` keeps its `name:string`. An op costs its canonical size less 7 bytes per
/// replica ID already in the table, and less the name's length for a gallery already named.
extension OpCodec {
    /// What one payload of a run of ops for a peer that takes `ops_compact` holds.
    package enum CompactBatch: Hashable, Sendable {
        /// The payload of an `ops_compact` frame.
        case compact([UInt8])
        /// The payload of an `ops` frame (canonical): an op whose compact form alone is over the
        /// size allowed (its new replica IDs make it longer than its canonical form).
        case canonical([UInt8])
    }

    /// The ops as an `ops_compact` payload: a varint count, then each op in compact form, the
    /// tables updated as the receiver will update its own.
    package static func encodeCompact(_ ops: [Op], tables: inout CompactOpTables) -> [UInt8] {
        var writer = ByteWriter(capacity: ops.count * 24)
        writer.varint(UInt64(ops.count))
        for op in ops { encode(op, into: &writer, names: &tables) }
        return writer.bytes
    }

    /// The ops as consecutive payloads of at most `maximumBytes` each (unless a single op is
    /// longer in both forms), in order: `ops_compact` payloads, except that an op whose compact
    /// form alone is over the size and whose canonical form is not goes in a canonical one.
    /// `tables` ends as the receiver's will after reading every compact payload.
    ///
    /// - Complexity: O(b) for b bytes of ops (an op that does not fit is encoded twice).
    package static func encodeCompactBatches(_ ops: some Sequence<Op>, maximumBytes: Int,
                                             tables: inout CompactOpTables) -> [CompactBatch] {
        var batcher = CompactBatcher(maximumBytes: maximumBytes)
        for op in ops {
            batcher.add(tables: &tables) { body, tables in
                encode(op, into: &body, names: &tables)
            } canonical: {
                var writer = ByteWriter()
                encode(op, into: &writer)
                return writer.bytes[...]
            }
        }
        return batcher.finish()
    }

    /// The ops of a canonical payload (`encode(_:)`'s format, as the op log holds them) as
    /// `encodeCompactBatches` makes them, copied byte for byte but for their names: nothing is
    /// decoded into `Op` values.
    ///
    /// - Throws: `DecodingError` for a payload that is not canonical ops (`tables` is then of no
    ///   further use).
    /// - Complexity: O(b) for b bytes of ops.
    package static func transcodeCompactBatches(_ payload: [UInt8], maximumBytes: Int,
                                                tables: inout CompactOpTables) throws(DecodingError) -> [CompactBatch] {
        var reader = ByteReader(payload)
        let count = try reader.count(limit: payload.count / 11)
        var next = reader.offset
        var batcher = CompactBatcher(maximumBytes: maximumBytes)
        for _ in 0..<count {
            let start = next
            try batcher.add(tables: &tables) { (body, tables) throws(DecodingError) in
                var op = ByteReader(payload, offset: start)
                try transcodeOp(payload, from: &op, into: &body, tables: &tables)
                next = op.offset
            } canonical: {
                payload[start..<next]
            }
        }
        guard next == payload.count else { throw .trailingBytes(payload.count - next) }
        return batcher.finish()
    }

    /// Copies one canonical op from `bytes` at `reader` to `writer`, its replica IDs and gallery
    /// names written by `tables` (the structure of `decodeStructure`, walked without building the op).
    private static func transcodeOp(_ bytes: [UInt8], from reader: inout ByteReader, into writer: inout ByteWriter,
                                    tables: inout CompactOpTables) throws(DecodingError) {
        var copied = reader.offset
        func copy() {
            writer.append(bytes[copied..<reader.offset])
        }
        func replica() throws(DecodingError) {
            copy()
            tables.writeReplica(ReplicaID(try reader.fixed64()), into: &writer)
            copied = reader.offset
        }
        func gallery() throws(DecodingError) {
            copy()
            tables.writeGallery(try reader.string(limit: maxStringBytes), into: &writer)
            copied = reader.offset
        }
        func skipString() throws(DecodingError) {
            _ = try reader.bytes(try reader.count(limit: maxStringBytes))
        }
        func reference() throws(DecodingError) {
            switch try reader.byte() {
            case 0: break
            case 1: _ = try reader.varint()
            case 2:
                _ = try reader.varint()
                try replica()
            case let tag: throw .unknownTag("reference tag", tag)
            }
        }
        func value() throws(DecodingError) {
            switch try reader.byte() {
            case 0: break
            case 1: try skipString()
            case 2: _ = try reader.fixed64()
            case 3: _ = try reader.varint()
            case 4: try reference()
            case let tag: throw .unknownTag("value tag", tag)
            }
        }
        let flaggedKind = try reader.byte()
        let kind = flaggedKind & ~sealedKindFlag
        _ = try reader.varint()
        try replica()
        _ = try reader.varint()
        switch kind {
        case 1:
            try skipString()
        case 2:
            try gallery()
            try reference()
            try reference()
            for _ in 0..<(try reader.count(limit: min(maxItemsPerInsert, reader.remaining / 2))) {
                _ = try reader.byte()
                for _ in 0..<(try reader.count(limit: ItemField.allCases.count)) {
                    _ = try reader.byte()
                    try value()
                }
            }
        case 3:
            try reference()
            try gallery()
            try reference()
            try reference()
        case 4, 6:
            try reference()
        case 7:
            try skipString()
            try skipString()
        case 8:
            try skipString()
        case 5:
            try reference()
            _ = try reader.byte()
            try value()
        default:
            throw .unknownTag("op kind", kind)
        }
        if flaggedKind & sealedKindFlag != 0 { try skipSeal(in: &reader) }
        copy()
    }

    /// Decodes an `ops_compact` payload with the receiver's tables, appending to them what the
    /// payload adds; the input must end after the last op. With `checkingBounds` (the default),
    /// an op outside `FieldLimits` throws `.outOfBounds`, its size counted as its canonical
    /// encoding's. An index past a table throws `.invalidValue`.
    package static func decodeCompact(_ bytes: [UInt8], tables: inout CompactOpTables,
                                     checkingBounds: Bool = true) throws(DecodingError) -> [Op] {
        var reader = ByteReader(bytes)
        // Every op takes at least 5 bytes (a `createGallery` with an empty name), which bounds the count.
        let count = try reader.count(limit: bytes.count / 5)
        var ops: [Op] = []
        ops.reserveCapacity(count)
        for _ in 0..<count {
            ops.append(try decode(from: &reader, names: &tables, checkingBounds: checkingBounds))
        }
        guard reader.isAtEnd else { throw .trailingBytes(reader.remaining) }
        return ops
    }
}

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
    public static func encodeCompact(_ ops: [Op], tables: inout CompactOpTables) -> [UInt8] {
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
        // A count takes at most 10 bytes: room kept for it, as `encodeBatches` does.
        let room = maximumBytes - 10
        var batches: [CompactBatch] = []
        var body = ByteWriter(capacity: 256)
        var count = 0
        func flush() {
            guard count > 0 else { return }
            var batch = ByteWriter(capacity: body.bytes.count + 10)
            batch.varint(UInt64(count))
            batch.append(body.bytes)
            batches.append(.compact(batch.bytes))
            body = ByteWriter(capacity: 256)
            count = 0
        }
        for op in ops {
            var mark = tables.mark
            var start = body.bytes.count
            encode(op, into: &body, names: &tables)
            if body.bytes.count > room && count > 0 {
                // Over the size with the ops before it: they go as they are, this one starts the next.
                body.truncate(to: start)
                tables.rollBack(to: mark)
                flush()
                mark = tables.mark
                start = 0
                encode(op, into: &body, names: &tables)
            }
            if body.bytes.count > room && encodedSize(of: op) <= room {
                // Too long alone, only by its new replica IDs: sent in the canonical form.
                body.truncate(to: start)
                tables.rollBack(to: mark)
                batches.append(.canonical(encode([op])))
                continue
            }
            // (An op too long in either form goes alone, as `encodeBatches` sends it.)
            count += 1
        }
        flush()
        return batches
    }

    /// Decodes an `ops_compact` payload with the receiver's tables, appending to them what the
    /// payload adds; the input must end after the last op. With `checkingBounds` (the default),
    /// an op outside `FieldLimits` throws `.outOfBounds`, its size counted as its canonical
    /// encoding's. An index past a table throws `.invalidValue`.
    public static func decodeCompact(_ bytes: [UInt8], tables: inout CompactOpTables,
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

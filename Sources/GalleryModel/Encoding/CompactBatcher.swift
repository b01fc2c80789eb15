/// Cuts a run of ops for a peer that takes `ops_compact` into payloads of at most a given size
/// (`OpCodec.encodeCompactBatches`, `OpCodec.transcodeCompactBatches`): ops in compact form, in
/// order, with the tables' appends undone for whatever is written and then dropped.
struct CompactBatcher {
    /// The most bytes of ops in one payload: the size less 10 bytes for its count (as
    /// `OpCodec.encodeBatches` keeps).
    private let room: Int
    private var batches: [OpCodec.CompactBatch] = []
    /// The compact ops of the payload being filled.
    private var body = ByteWriter(capacity: 256)
    /// How many ops `body` holds.
    private var count = 0

    init(maximumBytes: Int) {
        room = maximumBytes - 10
    }

    /// Adds one op. `write` appends its compact form with the tables given; it is called a second
    /// time, for a fresh payload, when the op does not fit after the ops before it. `canonical` is
    /// the op's canonical encoding, asked for only when its compact form alone is over the size:
    /// if that one fits, the op goes alone in a canonical payload (its new names then stay out of
    /// the tables); if neither fits, it goes alone in a compact one.
    mutating func add<E: Error>(tables: inout CompactOpTables,
                                write: (inout ByteWriter, inout CompactOpTables) throws(E) -> Void,
                                canonical: () -> ArraySlice<UInt8>) throws(E) {
        var mark = tables.mark
        var start = body.bytes.count
        try write(&body, &tables)
        if body.bytes.count > room && count > 0 {
            // Over the size with the ops before it: they go as they are, this one starts the next.
            body.truncate(to: start)
            tables.rollBack(to: mark)
            flush()
            mark = tables.mark
            start = 0
            try write(&body, &tables)
        }
        if body.bytes.count > room {
            let op = canonical()
            if op.count <= room {
                body.truncate(to: start)
                tables.rollBack(to: mark)
                var single = ByteWriter(capacity: op.count + 1)
                single.varint(1)
                single.append(op)
                batches.append(.canonical(single.bytes))
                return
            }
        }
        count += 1
    }

    /// The payloads, the last one included.
    mutating func finish() -> [OpCodec.CompactBatch] {
        flush()
        return batches
    }

    /// Ends the payload being filled, if it holds any op.
    private mutating func flush() {
        guard count > 0 else { return }
        var batch = ByteWriter(capacity: body.bytes.count + 10)
        batch.varint(UInt64(count))
        batch.append(body.bytes)
        batches.append(.compact(batch.bytes))
        body = ByteWriter(capacity: 256)
        count = 0
    }
}

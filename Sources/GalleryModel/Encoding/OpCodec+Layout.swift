/// Where the parts of one encoded op lie, read without building the op (no string, array or
/// dictionary is made): what a catch-up needs to leave a signature out of an op of the log, or to
/// hash the op into its author's chain, at the cost of a walk over its bytes.
package struct OpLayout: Equatable, Sendable {
    /// The op's ID.
    package var id: OpID
    /// The counter of its replica's op before it (`Op.previous`).
    package var previous: UInt64
    /// Its last counter (`Op.lastCounter`).
    package var lastCounter: UInt64
    /// The offset of the first byte after its body: its seal's flags when it is sealed, else `end`.
    package var bodyEnd: Int
    /// The offset of the first byte after the op.
    package var end: Int

    /// Whether a seal follows the body.
    package var isSealed: Bool { bodyEnd < end }

    /// Whether the op is a signature checkpoint (`Op.isSignatureCheckpoint`).
    package var isSignatureCheckpoint: Bool {
        Op.isSignatureCheckpoint(previous: previous, lastCounter: lastCounter)
    }
}

extension OpCodec {
    /// The layout of the op in canonical encoding (as the op log holds it) that starts at `offset`
    /// of `bytes`: the structure `decode` reads, walked without building the op. An op whose kind,
    /// tags or lengths are malformed throws; the values are not checked against `FieldLimits`.
    ///
    /// - Complexity: O(b) for an op of b bytes, without allocation.
    package static func layout(of bytes: [UInt8], at offset: Int) throws(DecodingError) -> OpLayout {
        var reader = ByteReader(bytes, offset: offset)
        func skipString() throws(DecodingError) {
            _ = try reader.bytes(try reader.count(limit: maxStringBytes))
        }
        func reference() throws(DecodingError) {
            switch try reader.byte() {
            case 0: break
            case 1: _ = try reader.varint()
            case 2:
                _ = try reader.varint()
                _ = try reader.fixed64()
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
        let counter = try reader.varint()
        let replica = ReplicaID(try reader.fixed64())
        let gap = try reader.varint()
        guard counter > 0, gap >= 1, gap <= counter else { throw .invalidValue("previous counter") }
        var span = 1
        switch flaggedKind & ~sealedKindFlag {
        case 1, 8:
            try skipString()
        case 2:
            try skipString()
            try reference()
            try reference()
            span = try reader.count(limit: min(maxItemsPerInsert, reader.remaining / 2))
            for _ in 0..<span {
                _ = try reader.byte()
                for _ in 0..<(try reader.count(limit: ItemField.allCases.count)) {
                    _ = try reader.byte()
                    try value()
                }
            }
        case 3:
            try reference()
            try skipString()
            try reference()
            try reference()
        case 4, 6:
            try reference()
        case 5:
            try reference()
            _ = try reader.byte()
            try value()
        case 7:
            try skipString()
            try skipString()
        case let kind:
            throw .unknownTag("op kind", kind)
        }
        let bodyEnd = reader.offset
        if flaggedKind & sealedKindFlag != 0 { try skipSeal(in: &reader) }
        let (last, overflow) = counter.addingReportingOverflow(UInt64(max(span, 1)) - 1)
        return OpLayout(
            id: OpID(counter: counter, replica: replica), previous: counter - gap,
            lastCounter: overflow ? .max : last, bodyEnd: bodyEnd, end: reader.offset)
    }
}

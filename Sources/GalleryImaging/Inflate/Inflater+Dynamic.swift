extension Inflater {
    /// The order in which a dynamic block's header gives the code-length code's lengths (RFC 1951 3.2.7).
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// Reads a dynamic block's header: the code-length code, then the literal/length and distance
    /// code lengths it encodes, and builds both tables.
    static func readDynamicTables(_ reader: inout BitReader) throws(ImageError) -> (HuffmanTable, HuffmanTable) {
        reader.refill()
        let literalCount = reader.read(5) + 257
        let distanceCount = reader.read(5) + 1
        let codeLengthCount = reader.read(4) + 4
        // 286 and 30 are the most the alphabets have; zlib rejects the larger counts the fields allow.
        guard literalCount <= 286, distanceCount <= 30 else {
            throw .malformed("dynamic block declares \(literalCount) literal/length and \(distanceCount) distance codes")
        }
        var codeLengthLengths = [UInt8](repeating: 0, count: 19)
        for index in 0..<codeLengthCount {
            codeLengthLengths[codeLengthOrder[index]] = UInt8(reader.read(3))
        }
        let codeLengthCode = try HuffmanTable(lengths: codeLengthLengths, alphabet: .codeLengths, rootBits: 7,
                                              completeness: .complete)
        let total = literalCount + distanceCount
        var lengths = [UInt8](repeating: 0, count: total)
        var filled = 0
        try codeLengthCode.entries.withUnsafeBufferPointer { (table) throws(ImageError) in
            while filled < total {
                reader.refill()
                if reader.overran { throw .truncated("deflate stream ends inside a dynamic block header") }
                let symbol = Int(try decodeEntry(&reader, table, rootBits: 7) >> 16)
                if symbol < 16 {
                    lengths[filled] = UInt8(symbol)
                    filled += 1
                    continue
                }
                let value: UInt8
                let repeats: Int
                switch symbol {
                case 16:
                    guard filled > 0 else { throw .malformed("code length repeat with no previous length") }
                    value = lengths[filled - 1]
                    repeats = 3 + reader.read(2)
                case 17:
                    value = 0
                    repeats = 3 + reader.read(3)
                default:
                    value = 0
                    repeats = 11 + reader.read(7)
                }
                guard repeats <= total - filled else { throw .malformed("code length repeat runs past the declared codes") }
                for index in filled..<filled + repeats { lengths[index] = value }
                filled += repeats
            }
        }
        if reader.overran { throw .truncated("deflate stream ends inside a dynamic block header") }
        guard lengths[256] != 0 else { throw .malformed("dynamic block has no end-of-block code") }
        let literals = try HuffmanTable(lengths: Array(lengths[0..<literalCount]), alphabet: .literalLength,
                                        rootBits: 10, completeness: .singleCodeOrEmptyAllowed)
        let distances = try HuffmanTable(lengths: Array(lengths[literalCount...]), alphabet: .distance,
                                         rootBits: 8, completeness: .singleCodeOrEmptyAllowed)
        return (literals, distances)
    }
}

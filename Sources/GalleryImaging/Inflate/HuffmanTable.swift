/// A canonical Huffman code (RFC 1951 section 3.2.2) as a two-level lookup table, for decoding
/// symbols from an LSB-first bit stream.
///
/// The root table is indexed by the next `rootBits` bits of the stream; codes longer than that go
/// through a link to a subtable sized for the longest code sharing the prefix (as zlib's inflate
/// does), so one or two lookups decode any symbol. An entry is a `UInt32`:
/// * bits 0-3: the bits the code takes (its length at the root; what is left of it in a subtable),
///   or, in a link, the subtable's index bits;
/// * bits 4-7: the extra bits that follow a length or distance symbol;
/// * bits 8-11: flags (link, invalid, length, end of block);
/// * bits 16-31: the value: a literal byte, a base length or distance, a code-length symbol, or a
///   link's subtable offset.
/// Storing base and extra bits in the entry (as libdeflate does) saves the decoder a table lookup
/// for every length and distance. Reserved symbols (literal/length 286-287, distance 30-31) take
/// their place in the code but decode as invalid.
struct HuffmanTable: Sendable {
    static let linkFlag: UInt32 = 0x100
    static let invalidFlag: UInt32 = 0x200
    static let lengthFlag: UInt32 = 0x400
    static let endOfBlockFlag: UInt32 = 0x800

    /// What the symbols mean, which decides each entry's value and flags.
    enum Alphabet {
        /// 0...18 of a dynamic block's header: the value is the symbol.
        case codeLengths
        /// 0...255 literals, 256 end of block, 257...285 lengths.
        case literalLength
        /// 0...29 distances.
        case distance
    }

    /// Root entries first, then the subtables.
    let entries: [UInt32]
    let rootBits: Int

    /// What a code-length set may be besides complete.
    enum Completeness {
        /// Must be complete: the code-length code, whose lengths come from the header.
        case complete
        /// As zlib allows for literal/length and distance codes: complete, or a single code of length 1
        /// (RFC 1951: "one distance code ... encoded using one bit"), or no codes at all (a block of
        /// literals only, for distances). Decoding an unused pattern fails.
        case singleCodeOrEmptyAllowed
    }

    /// Builds the table for `lengths[symbol]` (0 = unused, else 1...15).
    /// - Throws: `.malformed` for an over-subscribed set, or an incomplete one that `completeness` forbids.
    init(lengths: [UInt8], alphabet: Alphabet, rootBits: Int, completeness: Completeness) throws(ImageError) {
        var counts = [Int](repeating: 0, count: 16)
        for length in lengths {
            guard length <= 15 else { throw .malformed("Huffman code length \(length) above 15") }
            counts[Int(length)] += 1
        }
        counts[0] = 0
        // Kraft: `left` is the number of unused codes at each length; below zero means more codes than
        // patterns (over-subscribed), above zero at the end means unused patterns (incomplete).
        var left = 1
        var maxLength = 0
        for length in 1...15 {
            left = (left << 1) - counts[length]
            if left < 0 { throw .malformed("over-subscribed Huffman code lengths") }
            if counts[length] > 0 { maxLength = length }
        }
        if left > 0 {
            let allowed = completeness == .singleCodeOrEmptyAllowed && maxLength <= 1
            if !allowed { throw .malformed("incomplete Huffman code lengths") }
        }

        var nextCode = [Int](repeating: 0, count: 16)
        var code = 0
        for length in 1...15 {
            code = (code + counts[length - 1]) << 1
            nextCode[length] = code
        }
        // The stream gives a code's first bit first, so the table is indexed by the code bit-reversed.
        var reversed = [Int](repeating: 0, count: lengths.count)
        let rootSize = 1 << rootBits
        var prefixMax = [Int](repeating: 0, count: rootSize)
        for symbol in lengths.indices where lengths[symbol] != 0 {
            let length = Int(lengths[symbol])
            reversed[symbol] = Self.reverse(nextCode[length], length: length)
            nextCode[length] += 1
            if length > rootBits {
                let prefix = reversed[symbol] & (rootSize - 1)
                prefixMax[prefix] = max(prefixMax[prefix], length)
            }
        }

        var table = [UInt32](repeating: Self.invalidFlag, count: rootSize)
        var subOffset = [Int](repeating: 0, count: rootSize)
        for prefix in 0..<rootSize where prefixMax[prefix] != 0 {
            let subBits = prefixMax[prefix] - rootBits
            subOffset[prefix] = table.count
            table[prefix] = UInt32(table.count) << 16 | Self.linkFlag | UInt32(subBits)
            table.append(contentsOf: repeatElement(Self.invalidFlag, count: 1 << subBits))
        }
        for symbol in lengths.indices where lengths[symbol] != 0 {
            let length = Int(lengths[symbol])
            let bits = reversed[symbol]
            let meaning = Self.meaning(of: symbol, in: alphabet)
            if length <= rootBits {
                let entry = meaning | UInt32(length)
                var index = bits
                while index < rootSize {
                    table[index] = entry
                    index += 1 << length
                }
            } else {
                let prefix = bits & (rootSize - 1)
                let subBits = prefixMax[prefix] - rootBits
                let rest = length - rootBits
                let entry = meaning | UInt32(rest)
                var index = bits >> rootBits
                while index < 1 << subBits {
                    table[subOffset[prefix] + index] = entry
                    index += 1 << rest
                }
            }
        }
        entries = table
        self.rootBits = rootBits
    }

    /// The value, extra bits and flags of `symbol`'s entries (without the bit count).
    private static func meaning(of symbol: Int, in alphabet: Alphabet) -> UInt32 {
        switch alphabet {
        case .codeLengths:
            return UInt32(symbol) << 16
        case .literalLength:
            if symbol < 256 { return UInt32(symbol) << 16 }
            if symbol == 256 { return endOfBlockFlag }
            let index = symbol - 257
            guard index < lengthBase.count else { return invalidFlag }
            return UInt32(lengthBase[index]) << 16 | UInt32(lengthExtra[index]) << 4 | lengthFlag
        case .distance:
            guard symbol < distanceBase.count else { return invalidFlag }
            return UInt32(distanceBase[symbol]) << 16 | UInt32(distanceExtra[symbol]) << 4
        }
    }

    /// Base lengths and extra bits of literal/length symbols 257...285.
    private static let lengthBase: [UInt16] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                               35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                               3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    /// Base distances and extra bits of distance symbols 0...29.
    private static let distanceBase: [UInt16] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                                 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                                 8193, 12289, 16385, 24577]
    private static let distanceExtra: [UInt8] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                                 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private static func reverse(_ code: Int, length: Int) -> Int {
        var result = 0
        var value = code
        for _ in 0..<length {
            result = result << 1 | value & 1
            value >>= 1
        }
        return result
    }

    /// The fixed literal/length code of block type 1 (RFC 1951 section 3.2.6), symbols 0...287.
    static let fixedLiteralLength: HuffmanTable = {
        var lengths = [UInt8](repeating: 8, count: 288)
        for symbol in 144...255 { lengths[symbol] = 9 }
        for symbol in 256...279 { lengths[symbol] = 7 }
        // Complete by construction (the RFC's own code), so this cannot throw.
        return try! HuffmanTable(lengths: lengths, alphabet: .literalLength, rootBits: 10, completeness: .complete)
    }()

    /// The fixed distance code: 5 bits for symbols 0...31 (30 and 31 are rejected when decoded).
    static let fixedDistance: HuffmanTable = {
        // Complete by construction: 32 codes of 5 bits.
        try! HuffmanTable(lengths: [UInt8](repeating: 5, count: 32), alphabet: .distance, rootBits: 8, completeness: .complete)
    }()
}

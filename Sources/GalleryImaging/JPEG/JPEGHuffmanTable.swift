/// One Huffman table of a JPEG (DHT), flattened into a single `[Int32]` so a scan's hot loop needs
/// one pointer per table: a 9-bit lookahead table, then the canonical-code bounds for longer codes,
/// then the symbols.
struct JPEGHuffmanTable: Sendable {
    /// Bits resolved by one lookup: most codes of real tables are this short.
    static let lookaheadBits = 9
    static let lookupOffset = 0
    static let maxCodeOffset = 1 << lookaheadBits
    static let valueOffsetOffset = maxCodeOffset + 18
    static let valuesOffset = valueOffsetOffset + 18
    static let fastACOffset = valuesOffset + 256
    static let storageCount = fastACOffset + (1 << lookaheadBits)

    /// lookup[peek 9 bits] = (length << 8) | symbol, or 0 when the code is longer than 9 bits;
    /// maxCode[l] = the largest code of length l (-1 if none); symbols follow; then, for AC tables,
    /// fastAC[peek 9 bits] = value << 16 | run << 8 | bits used, when a code and its value bits
    /// fit in 9 bits (most coefficients of a photo), else 0.
    private(set) var storage: [Int32]

    /// Builds the table from DHT's 16 code-length counts and its symbols, refusing tables whose
    /// counts over-subscribe the code space (a hostile table would otherwise alias codes).
    init(counts: [Int], symbols: [UInt8]) throws(ImageError) {
        precondition(counts.count == 16)
        guard counts.reduce(0, +) == symbols.count, symbols.count <= 256 else {
            throw .malformed("Huffman table symbol count")
        }
        var storage = [Int32](repeating: 0, count: Self.storageCount)
        var code: Int32 = 0
        var index = 0
        for length in 1...16 {
            let count = counts[length - 1]
            // valueOffset maps a code of this length to its symbol's index.
            storage[Self.valueOffsetOffset + length] = Int32(index) - code
            if count > 0 {
                for _ in 0..<count {
                    if length <= Self.lookaheadBits {
                        let shift = Self.lookaheadBits - length
                        let first = Int(code) << shift
                        let entry = Int32(length << 8) | Int32(symbols[index])
                        for fill in first..<(first + (1 << shift)) { storage[Self.lookupOffset + fill] = entry }
                    }
                    code += 1
                    index += 1
                }
                storage[Self.maxCodeOffset + length] = code - 1
            } else {
                storage[Self.maxCodeOffset + length] = -1
            }
            // Over-subscribed: more codes of this length than the space left allows.
            guard code <= (Int32(1) << length) else { throw .malformed("over-subscribed Huffman table") }
            code <<= 1
        }
        // A sentinel above every 17-bit code stops the slow path's search.
        storage[Self.maxCodeOffset + 17] = Int32.max
        for (i, symbol) in symbols.enumerated() { storage[Self.valuesOffset + i] = Int32(symbol) }
        for peek in 0..<(1 << Self.lookaheadBits) {
            let entry = storage[Self.lookupOffset + peek]
            guard entry != 0 else { continue }
            let length = Int(entry >> 8), symbol = Int(entry & 0xFF)
            let run = symbol >> 4, size = symbol & 15
            guard size != 0, length + size <= Self.lookaheadBits else { continue }
            let raw = (peek >> (Self.lookaheadBits - length - size)) & ((1 << size) - 1)
            let value = raw < (1 << (size - 1)) ? raw - (1 << size) + 1 : raw
            storage[Self.fastACOffset + peek] = Int32(value) << 16 | Int32(run) << 8 | Int32(length + size)
        }
        self.storage = storage
    }
}

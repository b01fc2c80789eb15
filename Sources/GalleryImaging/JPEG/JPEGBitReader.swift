/// Reads a scan's entropy-coded bits: removes the 0xFF00 stuffing, stops at a marker and then
/// feeds zero bits (as libjpeg does), counting them so a truncated scan becomes an error.
struct JPEGBitReader {
    let base: UnsafePointer<UInt8>
    /// Index of the next unread byte.
    var position: Int
    let end: Int
    /// Unread bits, left-aligned: the next bit is bit 63.
    var buffer: UInt64 = 0
    var count: Int = 0
    /// A marker (or the end of the data) was reached; the reader now supplies zeros.
    var markerHit = false
    /// Zero bytes supplied past the scan's data since the last restart.
    var paddedBytes = 0

    init(base: UnsafePointer<UInt8>, position: Int, end: Int) {
        self.base = base
        self.position = position
        self.end = end
    }

    /// Tops the buffer up to at least 57 bits.
    @inline(__always) mutating func fill() {
        if count <= 56 { refill() }
    }

    /// Eight bytes at a time while they hold no 0xFF (almost always), else byte by byte.
    @inline(never) mutating func refill() {
        if !markerHit, end - position >= 8 {
            let word = UInt64(bigEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            // A zero byte in ~word is a 0xFF byte in word.
            let inverted = ~word
            let hasFF = (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080
            if hasFF == 0 {
                let take = (64 - count) / 8
                buffer |= (word >> UInt64(64 - 8 * take)) << UInt64(64 - count - 8 * take)
                position += take
                count += 8 * take
                return
            }
        }
        while count <= 56 {
            var byte: UInt64 = 0
            if !markerHit, position < end {
                let value = base[position]
                if value != 0xFF {
                    byte = UInt64(value)
                    position += 1
                } else {
                    // 0xFF 0x00 is a data 0xFF; fill bytes 0xFF may precede a marker.
                    var next = position + 1
                    while next < end, base[next] == 0xFF { next += 1 }
                    if next < end, base[next] == 0 {
                        byte = 0xFF
                        position = next + 1
                    } else {
                        markerHit = true
                        position = next - 1
                        paddedBytes += 1
                    }
                }
            } else {
                markerHit = true
                paddedBytes += 1
            }
            buffer |= byte << UInt64(56 - count)
            count += 8
        }
    }

    /// The next `n` bits (1...16) as an unsigned value.
    @inline(__always) mutating func bits(_ n: Int) -> Int {
        if count < n { fill() }
        let value = Int(truncatingIfNeeded: buffer >> UInt64(64 - n))
        buffer <<= UInt64(n)
        count -= n
        return value
    }

    @inline(__always) mutating func bit() -> Bool {
        if count < 1 { fill() }
        let set = buffer >> 63 != 0
        buffer <<= 1
        count -= 1
        return set
    }

    /// `n` bits read as a signed DCT difference (T.81 F.2.2.1 EXTEND).
    @inline(__always) mutating func signed(_ n: Int) -> Int32 {
        if n == 0 { return 0 }
        let value = Int32(truncatingIfNeeded: bits(n))
        return value < (Int32(1) << (n - 1)) ? value - (Int32(1) << n) + 1 : value
    }

    /// Decodes one Huffman symbol with `table` (a `JPEGHuffmanTable.storage`).
    @inline(__always) mutating func symbol(_ table: UnsafePointer<Int32>) throws(ImageError) -> Int {
        if count < 16 { fill() }
        let entry = table[Int(truncatingIfNeeded: buffer >> UInt64(64 - JPEGHuffmanTable.lookaheadBits))]
        if entry != 0 {
            let length = Int(entry >> 8)
            buffer <<= UInt64(length)
            count -= length
            return Int(entry & 0xFF)
        }
        return try slowSymbol(table)
    }

    /// Codes longer than the lookahead: walk the canonical lengths (T.81 F.2.2.3).
    mutating func slowSymbol(_ table: UnsafePointer<Int32>) throws(ImageError) -> Int {
        var length = JPEGHuffmanTable.lookaheadBits + 1
        var code = Int32(truncatingIfNeeded: buffer >> UInt64(64 - length))
        while code > table[JPEGHuffmanTable.maxCodeOffset + length] {
            length += 1
            if length > 16 { throw .malformed("bad Huffman code") }
            code = Int32(truncatingIfNeeded: buffer >> UInt64(64 - length))
        }
        buffer <<= UInt64(length)
        count -= length
        let index = Int(code + table[JPEGHuffmanTable.valueOffsetOffset + length])
        guard (0..<256).contains(index) else { throw .malformed("bad Huffman code") }
        return Int(table[JPEGHuffmanTable.valuesOffset + index])
    }

    /// Drops buffered bits and steps over the restart marker expected here; if the data does not
    /// have it, skips ahead to the next restart marker (libjpeg's resync, simplified).
    mutating func restart() throws(ImageError) {
        buffer = 0
        count = 0
        markerHit = false
        paddedBytes = 0
        var index = position
        while index + 1 < end {
            if base[index] == 0xFF {
                let marker = base[index + 1]
                if marker >= 0xD0 && marker <= 0xD7 {
                    position = index + 2
                    return
                }
                if marker != 0 && marker != 0xFF { break }
            }
            index += 1
        }
        throw .truncated("restart marker missing")
    }
}

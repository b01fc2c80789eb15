/// Writes the entropy-coded bits with 0xFF stuffing.
struct JPEGBitWriter {
    var out: [UInt8]
    private var buffer: UInt64 = 0
    private var count = 0

    init(out: [UInt8]) { self.out = out }

    @inline(__always) mutating func write(_ bits: UInt32, _ length: Int) {
        buffer = buffer << UInt64(length) | UInt64(bits)
        count += length
        if count >= 32 { drain() }
    }

    private mutating func drain() {
        while count >= 8 {
            count -= 8
            let byte = UInt8(truncatingIfNeeded: buffer >> UInt64(count))
            out.append(byte)
            if byte == 0xFF { out.append(0) }
        }
    }

    /// Pads the last byte with 1 bits (T.81 F.1.2.3) and flushes.
    mutating func finish() {
        drain()
        if count > 0 { write((1 << UInt32(8 - count)) - 1, 8 - count) }
        drain()
    }
}

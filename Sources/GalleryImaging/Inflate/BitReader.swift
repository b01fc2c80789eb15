/// Reads DEFLATE's LSB-first bit stream from a buffer through a 64-bit accumulator.
///
/// `refill()` tops the accumulator up to at least 56 bits, which covers the longest step of the
/// decoder (a 15-bit code plus 5 extra bits, then a 15-bit code plus 13 extra bits) without another
/// check. Past the end of the input it shifts in zeros and counts them, so the hot loop has no bounds
/// checks; `overran` tells when real bits have run out, and the decoder checks it after every symbol
/// that used such padding.
struct BitReader {
    private let base: UnsafePointer<UInt8>
    let count: Int
    /// The next byte to load into the accumulator (may pass `count` by the zero padding).
    private(set) var position: Int
    /// Unconsumed bits, the next one lowest; bits at and above `bitCount` are zero.
    private(set) var buffer: UInt64 = 0
    private(set) var bitCount = 0

    init(_ input: UnsafeRawBufferPointer) {
        // An empty buffer may have no base address; any valid pointer does, since nothing is read.
        base = input.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
        count = input.count
        position = 0
    }

    /// True when more bits were consumed than the input holds.
    var overran: Bool { position * 8 - bitCount > count * 8 }

    /// Bytes of the input consumed so far, counting a partly consumed byte as consumed.
    var bytesConsumed: Int { position - bitCount / 8 }

    @inline(__always)
    mutating func refill() {
        if position + 8 <= count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            buffer |= word << UInt64(bitCount)
            let added = (63 - bitCount) >> 3
            position += added
            bitCount += added << 3
            buffer &= (1 << UInt64(bitCount)) - 1
        } else {
            refillSlowly()
        }
    }

    private mutating func refillSlowly() {
        while bitCount <= 56 {
            let byte: UInt64 = position < count ? UInt64(base[position]) : 0
            buffer |= byte << UInt64(bitCount)
            position += 1
            bitCount += 8
        }
    }

    /// The next `n` bits (n <= 32) without consuming them; call `refill()` first.
    @inline(__always)
    func peek(_ n: Int) -> Int {
        Int(truncatingIfNeeded: buffer & ((1 << UInt64(n)) - 1))
    }

    @inline(__always)
    mutating func consume(_ n: Int) {
        buffer >>= UInt64(n)
        bitCount -= n
    }

    /// Reads `n` bits (n <= 32), refilling as needed.
    @inline(__always)
    mutating func read(_ n: Int) -> Int {
        if bitCount < n { refill() }
        let value = peek(n)
        consume(n)
        return value
    }

    /// Drops the bits up to the next byte boundary and hands the whole bytes still in the accumulator
    /// back to the input, so that `position` is the next unread byte (for stored blocks and trailers).
    mutating func alignToByte() {
        consume(bitCount & 7)
        position -= bitCount >> 3
        buffer = 0
        bitCount = 0
    }

    /// Copies `n` bytes at the byte-aligned position to `destination`; false when the input is short.
    mutating func copyBytes(_ n: Int, to destination: UnsafeMutablePointer<UInt8>) -> Bool {
        guard bitCount == 0, position <= count, n <= count - position else { return false }
        destination.update(from: base + position, count: n)
        position += n
        return true
    }

    /// The byte at the byte-aligned position, or nil at the end of the input.
    mutating func readByte() -> UInt8? {
        guard bitCount == 0, position < count else { return nil }
        defer { position += 1 }
        return base[position]
    }
}

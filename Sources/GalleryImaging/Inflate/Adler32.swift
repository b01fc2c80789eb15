/// The Adler-32 checksum of RFC 1950 (zlib's trailer).
package enum Adler32 {
    /// Adler-32 of `bytes`, continuing from `start` (1 for a fresh checksum).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, start: UInt32 = 1) -> UInt32 {
        var a = start & 0xFFFF
        var b = start >> 16
        var index = 0
        // 5552 is the most bytes whose sums cannot overflow 32 bits before the modulo (zlib's NMAX).
        while index < bytes.count {
            let end = min(index + 5552, bytes.count)
            while index < end {
                a &+= UInt32(bytes[index])
                b &+= a
                index += 1
            }
            a %= 65521
            b %= 65521
        }
        return b << 16 | a
    }
}

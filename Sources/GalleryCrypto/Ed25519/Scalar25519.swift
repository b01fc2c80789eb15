/// Arithmetic modulo L = 2^252 + 27742317777372353535851937790883648493, the order of
/// edwards25519's prime-order subgroup: Ed25519's scalars.
///
/// Values are little-endian 64-bit words. Reduction is Barrett's (Handbook of Applied
/// Cryptography, algorithm 14.42, with b = 2^64 and k = 4): for x < 2^512,
/// q = ⌊⌊x / 2^192⌋·μ / 2^320⌋ with μ = ⌊2^512 / L⌋, r = x - q·L is below 3L, and two masked
/// subtractions of L finish it.
///
/// **Constant time:** fixed loop counts, carries through the add's overflow flag, the final
/// subtractions by mask; the secret scalar of signing goes through `multiplyAdd`.
enum Scalar25519 {
    /// L, 4 words.
    static let order: [UInt64] = [0x5812_631a_5cf5_d3ed, 0x14de_f9de_a2f7_9cd6, 0, 0x1000_0000_0000_0000]
    /// μ = ⌊2^512 / L⌋, 5 words.
    static let mu: [UInt64] = [0xed9c_e5a3_0a2c_131b, 0x2106_215d_0863_29a7, 0xffff_ffff_ffff_ffeb, 0xffff_ffff_ffff_ffff, 0xf]

    /// The 64-byte little-endian integer `bytes` (a SHA-512 digest) mod L, as 32 bytes.
    static func reduce(_ bytes: [UInt8]) -> [UInt8] {
        Self.bytes(of: reduce(words: words(of: bytes)))
    }

    /// (a·b + c) mod L for 32-byte little-endian a, b, c (each below 2^256), as 32 bytes.
    static func multiplyAdd(_ a: [UInt8], _ b: [UInt8], _ c: [UInt8]) -> [UInt8] {
        var product = multiply(words(of: a), words(of: b))
        let addend = words(of: c)
        var carry: UInt64 = 0
        for index in 0..<8 {
            let (sum, overflow1) = product[index].addingReportingOverflow(index < 4 ? addend[index] : 0)
            let (total, overflow2) = sum.addingReportingOverflow(carry)
            product[index] = total
            carry = bit(overflow1) &+ bit(overflow2)
        }
        // a, b, c < 2^256 would allow a carry out of 2^512; Ed25519's are below 2^255 and L, so none.
        return bytes(of: reduce(words: product))
    }

    /// Whether the 32-byte little-endian `bytes` is below L: RFC 8032 section 5.1.7's check on S.
    /// Not constant time: S is public.
    static func isCanonical(_ bytes: [UInt8]) -> Bool {
        let value = words(of: bytes)
        for index in stride(from: 3, through: 0, by: -1) where value[index] != order[index] {
            return value[index] < order[index]
        }
        return false
    }

    /// x mod L for x of 8 words.
    static func reduce(words x: [UInt64]) -> [UInt64] {
        let q1 = Array(x[3..<8])
        let q2 = multiply(q1, mu)
        let q3 = Array(q2[5..<10])
        let r2 = multiply(q3, order)
        // r = (x mod 2^320) - (q3·L mod 2^320), mod 2^320: below 3L, so the wrap is exact.
        var r = [UInt64](repeating: 0, count: 5)
        var borrow: UInt64 = 0
        for index in 0..<5 {
            let (difference, borrow1) = x[index].subtractingReportingOverflow(r2[index])
            let (result, borrow2) = difference.subtractingReportingOverflow(borrow)
            r[index] = result
            borrow = bit(borrow1) &+ bit(borrow2)
        }
        subtractOrderIfAbove(&r)
        subtractOrderIfAbove(&r)
        return Array(r[0..<4])
    }

    /// r - L if r >= L, else r, chosen by mask (r has 5 words).
    @inline(__always)
    private static func subtractOrderIfAbove(_ r: inout [UInt64]) {
        var difference = [UInt64](repeating: 0, count: 5)
        var borrow: UInt64 = 0
        for index in 0..<5 {
            let (partial, borrow1) = r[index].subtractingReportingOverflow(index < 4 ? order[index] : 0)
            let (result, borrow2) = partial.subtractingReportingOverflow(borrow)
            difference[index] = result
            borrow = bit(borrow1) &+ bit(borrow2)
        }
        // borrow is 1 when r < L: keep r; 0: take the difference.
        let keep = 0 &- borrow
        for index in 0..<5 { r[index] = (r[index] & keep) | (difference[index] & ~keep) }
    }

    /// The full product of two word arrays (schoolbook).
    static func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var out = [UInt64](repeating: 0, count: a.count + b.count)
        for i in a.indices {
            var carry: UInt64 = 0
            for j in b.indices {
                let product = a[i].multipliedFullWidth(by: b[j])
                let (sum, overflow1) = product.low.addingReportingOverflow(out[i + j])
                let (total, overflow2) = sum.addingReportingOverflow(carry)
                out[i + j] = total
                // a·b + out + carry < 2^128: the high word cannot overflow.
                carry = product.high &+ bit(overflow1) &+ bit(overflow2)
            }
            out[i + b.count] = carry
        }
        return out
    }

    /// A flag as 0 or 1 without a branch in the source (LLVM emits setc/adc).
    @inline(__always)
    private static func bit(_ flag: Bool) -> UInt64 { UInt64(unsafeBitCast(flag, to: UInt8.self)) }

    /// The little-endian words of `bytes` (a multiple of 8 long).
    static func words(of bytes: [UInt8]) -> [UInt64] {
        (0..<bytes.count / 8).map { word in
            (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[8 * word + $1]) << (8 * UInt64($1)) }
        }
    }

    /// The little-endian bytes of `words`.
    static func bytes(of words: [UInt64]) -> [UInt8] {
        words.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) } }
    }
}

/// An element of GF(2^255 - 19), the field of Curve25519, in five unsigned 51-bit limbs:
/// value = l0 + l1·2^51 + l2·2^102 + l3·2^153 + l4·2^204.
///
/// **Constant time.** Every operation runs the same instructions on every input: no branch and no
/// memory index depends on a limb. Products are 64 × 64 → 128-bit (`multipliedFullWidth`), summed
/// in a `WideLimb`, whose carry out of the low word is taken from the add's overflow flag (LLVM
/// lowers it to `adc`/`setc`, not a branch). `swapped(if:)` swaps with a mask, never a branch.
///
/// Limbs are kept "loosely reduced": results of `*`, `squared()`, `-` and `times121665()` have
/// limbs below 2^51 + 2^13; `+` does not carry, so its limbs stay below 2^52 + 2^14, which every
/// operation accepts as input (the product sums stay below 2^111, see `reduce`). Only
/// `bytes` reduces fully, to the canonical value below p.
struct FieldElement25519: Sendable {
    /// The five limbs, least significant first.
    var l0, l1, l2, l3, l4: UInt64

    /// 2^51 - 1.
    static let mask: UInt64 = (1 << 51) - 1

    /// 0.
    static let zero = FieldElement25519(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0)
    /// 1.
    static let one = FieldElement25519(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)

    /// The element whose little-endian encoding is the 32 bytes at `bytes`, bit 255 ignored
    /// (RFC 7748 section 5: "mask the most significant bit"). Non-canonical values (p ... 2^255 - 1)
    /// are accepted as RFC 7748 requires and reduce in arithmetic.
    init(bytes: UnsafeRawBufferPointer) {
        let w0 = bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self).littleEndian
        let w1 = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian
        let w2 = bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self).littleEndian
        let w3 = bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self).littleEndian
        l0 = w0 & Self.mask
        l1 = (w0 >> 51 | w1 << 13) & Self.mask
        l2 = (w1 >> 38 | w2 << 26) & Self.mask
        l3 = (w2 >> 25 | w3 << 39) & Self.mask
        l4 = (w3 >> 12) & Self.mask
    }

    /// An element from its limbs.
    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64) {
        (self.l0, self.l1, self.l2, self.l3, self.l4) = (l0, l1, l2, l3, l4)
    }

    /// The canonical 32-byte little-endian encoding (fully reduced below p), in constant time.
    var bytes: [UInt8] {
        var h = self
        h.carry()
        h.carry()
        // Now h < 2^255 + 2^13·19. q = 1 exactly when h >= p, found by propagating h + 19's carries.
        var q = (h.l0 &+ 19) >> 51
        q = (h.l1 &+ q) >> 51
        q = (h.l2 &+ q) >> 51
        q = (h.l3 &+ q) >> 51
        q = (h.l4 &+ q) >> 51
        // h - q·p = h + 19q - q·2^255: add 19q, carry, and drop bit 255.
        h.l0 &+= 19 &* q
        h.l1 &+= h.l0 >> 51; h.l0 &= Self.mask
        h.l2 &+= h.l1 >> 51; h.l1 &= Self.mask
        h.l3 &+= h.l2 >> 51; h.l2 &= Self.mask
        h.l4 &+= h.l3 >> 51; h.l3 &= Self.mask
        h.l4 &= Self.mask
        let words = (
            h.l0 | h.l1 << 51,
            h.l1 >> 13 | h.l2 << 38,
            h.l2 >> 26 | h.l3 << 25,
            h.l3 >> 39 | h.l4 << 12
        )
        return [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.storeBytes(of: words.0.littleEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: words.1.littleEndian, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: words.2.littleEndian, toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: words.3.littleEndian, toByteOffset: 24, as: UInt64.self)
            count = 32
        }
    }

    /// One pass of carries through the limbs, the top carry folded back times 19 (2^255 ≡ 19).
    @inline(__always)
    private mutating func carry() {
        l1 &+= l0 >> 51; l0 &= Self.mask
        l2 &+= l1 >> 51; l1 &= Self.mask
        l3 &+= l2 >> 51; l2 &= Self.mask
        l4 &+= l3 >> 51; l3 &= Self.mask
        l0 &+= 19 &* (l4 >> 51); l4 &= Self.mask
    }

    // MARK: Arithmetic

    /// a + b, without carrying (limbs below 2^52 + 2^14).
    @inline(__always)
    static func + (a: Self, b: Self) -> Self {
        Self(l0: a.l0 &+ b.l0, l1: a.l1 &+ b.l1, l2: a.l2 &+ b.l2, l3: a.l3 &+ b.l3, l4: a.l4 &+ b.l4)
    }

    /// a - b, computed as a + 4p - b (never negative for loosely reduced inputs), then carried.
    @inline(__always)
    static func - (a: Self, b: Self) -> Self {
        // 4p in limbs: 4·(2^51 - 19), then 4·(2^51 - 1) four times.
        var r = Self(
            l0: a.l0 &+ 0x1F_FFFF_FFFF_FFB4 &- b.l0,
            l1: a.l1 &+ 0x1F_FFFF_FFFF_FFFC &- b.l1,
            l2: a.l2 &+ 0x1F_FFFF_FFFF_FFFC &- b.l2,
            l3: a.l3 &+ 0x1F_FFFF_FFFF_FFFC &- b.l3,
            l4: a.l4 &+ 0x1F_FFFF_FFFF_FFFC &- b.l4
        )
        r.carry()
        return r
    }

    /// a · b mod p.
    @inline(__always)
    static func * (a: Self, b: Self) -> Self {
        let b1 = 19 &* b.l1, b2 = 19 &* b.l2, b3 = 19 &* b.l3, b4 = 19 &* b.l4
        let r0 = WideLimb(a.l0, b.l0) + WideLimb(a.l1, b4) + WideLimb(a.l2, b3) + WideLimb(a.l3, b2) + WideLimb(a.l4, b1)
        let r1 = WideLimb(a.l0, b.l1) + WideLimb(a.l1, b.l0) + WideLimb(a.l2, b4) + WideLimb(a.l3, b3) + WideLimb(a.l4, b2)
        let r2 = WideLimb(a.l0, b.l2) + WideLimb(a.l1, b.l1) + WideLimb(a.l2, b.l0) + WideLimb(a.l3, b4) + WideLimb(a.l4, b3)
        let r3 = WideLimb(a.l0, b.l3) + WideLimb(a.l1, b.l2) + WideLimb(a.l2, b.l1) + WideLimb(a.l3, b.l0) + WideLimb(a.l4, b4)
        let r4 = WideLimb(a.l0, b.l4) + WideLimb(a.l1, b.l3) + WideLimb(a.l2, b.l2) + WideLimb(a.l3, b.l1) + WideLimb(a.l4, b.l0)
        return reduce(r0, r1, r2, r3, r4)
    }

    /// self² mod p (fewer products than `self * self`).
    @inline(__always)
    func squared() -> Self {
        let d0 = 2 &* l0, d1 = 2 &* l1
        let l3x19 = 19 &* l3, l4x19 = 19 &* l4, l4x38 = 38 &* l4
        let r0 = WideLimb(l0, l0) + WideLimb(d1, l4x19) + WideLimb(2 &* l2, l3x19)
        let r1 = WideLimb(d0, l1) + WideLimb(l3, l3x19) + WideLimb(l2, l4x38)
        let r2 = WideLimb(d0, l2) + WideLimb(l1, l1) + WideLimb(l3, l4x38)
        let r3 = WideLimb(d0, l3) + WideLimb(d1, l2) + WideLimb(l4, l4x19)
        let r4 = WideLimb(d0, l4) + WideLimb(d1, l3) + WideLimb(l2, l2)
        return Self.reduce(r0, r1, r2, r3, r4)
    }

    /// self² squared `count` more times: self^(2^count), for `count` >= 1 (a public loop count).
    @inline(__always)
    func squared(times count: Int) -> Self {
        var r = squared()
        for _ in 1..<count { r = r.squared() }
        return r
    }

    /// self · 121665 mod p, the (A - 2) / 4 of RFC 7748's ladder.
    @inline(__always)
    func times121665() -> Self {
        Self.reduce(WideLimb(l0, 121_665), WideLimb(l1, 121_665), WideLimb(l2, 121_665),
                    WideLimb(l3, 121_665), WideLimb(l4, 121_665))
    }

    /// The loosely reduced element with the 128-bit limb sums r0...r4 (each below 2^111).
    ///
    /// Carries 51 bits at a time; the carry out of r4 (below 2^60) times 19 is folded into limb 0,
    /// and one more carry leaves limbs below 2^51 + 2^13.
    @inline(__always)
    private static func reduce(_ r0: WideLimb, _ r1: WideLimb, _ r2: WideLimb, _ r3: WideLimb, _ r4: WideLimb) -> Self {
        var r1 = r1, r2 = r2, r3 = r3, r4 = r4
        let c0 = r0.shiftedRight51
        r1 = r1 + c0
        let c1 = r1.shiftedRight51
        r2 = r2 + c1
        let c2 = r2.shiftedRight51
        r3 = r3 + c2
        let c3 = r3.shiftedRight51
        r4 = r4 + c3
        let c4 = r4.shiftedRight51
        var out = Self(l0: r0.low & mask, l1: r1.low & mask, l2: r2.low & mask, l3: r3.low & mask, l4: r4.low & mask)
        out.l0 &+= 19 &* c4
        out.l1 &+= out.l0 >> 51
        out.l0 &= mask
        return out
    }

    /// Swaps `a` and `b` when `bit` is 1, leaves them when it is 0, by masking: no branch on `bit`.
    @inline(__always)
    static func conditionalSwap(_ a: inout Self, _ b: inout Self, bit: UInt64) {
        let m = 0 &- bit
        let t0 = m & (a.l0 ^ b.l0), t1 = m & (a.l1 ^ b.l1), t2 = m & (a.l2 ^ b.l2)
        let t3 = m & (a.l3 ^ b.l3), t4 = m & (a.l4 ^ b.l4)
        a.l0 ^= t0; a.l1 ^= t1; a.l2 ^= t2; a.l3 ^= t3; a.l4 ^= t4
        b.l0 ^= t0; b.l1 ^= t1; b.l2 ^= t2; b.l3 ^= t3; b.l4 ^= t4
    }

    /// self^(p - 2) = self⁻¹ (0 for 0), by Fermat, with the fixed addition chain of curve25519's
    /// reference code: 254 squarings and 11 multiplications whatever the value.
    func inverted() -> Self {
        let (z2_250_0, z11) = raisedTo2Pow250Minus1()
        return z2_250_0.squared(times: 5) * z11  // 2^255 - 2^5 + 11 = p - 2
    }

    /// The chain both `inverted()` and `raisedToPMinus5Over8()` start with: self^(2^250 - 1), and
    /// self^11 on the way.
    func raisedTo2Pow250Minus1() -> (Self, eleven: Self) {
        let z2 = squared()                       // 2
        let z9 = z2.squared(times: 2) * self     // 9
        let z11 = z9 * z2                        // 11
        let z2_5_0 = z11.squared() * z9          // 2^5 - 1
        let z2_10_0 = z2_5_0.squared(times: 5) * z2_5_0
        let z2_20_0 = z2_10_0.squared(times: 10) * z2_10_0
        let z2_40_0 = z2_20_0.squared(times: 20) * z2_20_0
        let z2_50_0 = z2_40_0.squared(times: 10) * z2_10_0
        let z2_100_0 = z2_50_0.squared(times: 50) * z2_50_0
        let z2_200_0 = z2_100_0.squared(times: 100) * z2_100_0
        return (z2_200_0.squared(times: 50) * z2_50_0, z11)
    }
}

/// An unsigned 128-bit sum of 64 × 64-bit limb products, as two words.
struct WideLimb: Sendable {
    /// The low and high 64 bits.
    var low, high: UInt64

    /// The full product a · b.
    @inline(__always)
    init(_ a: UInt64, _ b: UInt64) {
        let product = a.multipliedFullWidth(by: b)
        (low, high) = (product.low, product.high)
    }

    /// A value below 2^64.
    @inline(__always)
    init(_ value: UInt64) {
        (low, high) = (value, 0)
    }

    /// The sum (no overflow past 128 bits for the sums of `FieldElement25519`).
    @inline(__always)
    static func + (a: Self, b: Self) -> Self {
        let (low, overflow) = a.low.addingReportingOverflow(b.low)
        var sum = Self(low)
        // Bool to 0/1 without a branch in the source; LLVM emits adc/setc.
        sum.high = a.high &+ b.high &+ UInt64(unsafeBitCast(overflow, to: UInt8.self))
        return sum
    }

    /// The sum with a carry word.
    @inline(__always)
    static func + (a: Self, b: UInt64) -> Self { a + Self(b) }

    /// self >> 51 as a word (the caller's sums are below 2^115, so the result fits).
    @inline(__always)
    var shiftedRight51: UInt64 { low >> 51 | high << 13 }
}

/// Decoding points (RFC 8032 section 5.1.3), strictly.
extension EdwardsPoint {
    /// The base point B: y = 4/5, x even.
    static let base: EdwardsPoint = {
        var bytes = [UInt8](repeating: 0x66, count: 32)
        bytes[0] = 0x58
        // Cannot fail: the encoding of B is canonical and on the curve.
        return EdwardsPoint(decoding: bytes)!
    }()

    /// The point with the 32-byte encoding `bytes`, or nil if the encoding is not canonical or
    /// not a point: y >= p (RFC 8032 leaves y in p...2^255-1 to the implementation; we refuse it,
    /// so one point has exactly one encoding), x² = (y² - 1)/(d·y² + 1) without a root, or x = 0
    /// with the sign bit set. Not constant time: points decoded here are public.
    init?(decoding bytes: [UInt8]) {
        guard bytes.count == 32, Self.isCanonicalY(bytes) else { return nil }
        let y = FieldElement25519(bytes)
        let sign = UInt64(bytes[31] >> 7)
        let yy = y.squared()
        let u = yy - .one
        let v = yy * .d + .one
        // x = u·v³·(u·v⁷)^((p-5)/8), a root of u/v if one exists (RFC 8032 section 5.1.3, step 3).
        let v3 = v.squared() * v
        let v7 = v3.squared() * v
        var x = u * v3 * (u * v7).raisedToPMinus5Over8()
        let vxx = v * x.squared()
        if !(vxx - u).isZero {
            guard (vxx + u).isZero else { return nil }
            x = x * .sqrtMinusOne
        }
        if x.isZero && sign == 1 { return nil }
        if x.isNegative != sign { x = x.negated }
        self.init(x: x, y: y, z: .one, t: x * y)
    }

    /// Whether the low 255 bits of `bytes`, little-endian, are below p = 2^255 - 19.
    static func isCanonicalY(_ bytes: [UInt8]) -> Bool {
        // Only 2^255 - 19 ... 2^255 - 1 are not: 0xed...0xff, then thirty 0xff, then 0x7f.
        guard bytes[31] & 0x7f == 0x7f, bytes[1..<31].allSatisfy({ $0 == 0xff }) else { return true }
        return bytes[0] < 0xed
    }

    /// The 32-byte encoding.
    var encoded: [UInt8] { projective.encoded }
}

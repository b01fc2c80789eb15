/// X25519 Diffie-Hellman (RFC 7748): scalar multiplication on the Montgomery form of Curve25519.
///
/// **Constant time:** the ladder runs 255 identical steps whatever the scalar, swapping its two
/// points with masks (`FieldElement25519.conditionalSwap`), and the field arithmetic has no
/// secret-dependent branch or memory index (see `FieldElement25519`). The scalar's bits are read at
/// public positions. **Not constant time:** the length checks (lengths are public) and the
/// all-zero check of `PrivateKey.sharedSecret(with:)` (its result, a refusal, is public anyway).
/// Secrets live in Swift arrays and are not wiped from memory after use (Swift gives no way to
/// guarantee it); a process that can read this one's memory has its keys.
package enum X25519 {
    /// The length of scalars, u-coordinates, keys and shared secrets in bytes (32).
    package static let byteCount = 32

    /// The u-coordinate of the base point, 9.
    package static let basePoint: [UInt8] = [9] + [UInt8](repeating: 0, count: 31)

    /// X25519(scalar, u) of RFC 7748 section 5: the scalar is clamped (bits 0-2 and 255 cleared,
    /// bit 254 set), bit 255 of `u` is ignored, and the result is the 32-byte u-coordinate.
    ///
    /// Throws `CryptoError.invalidLength` unless both are 32 bytes. The result may be all zeros
    /// (`u` of small order); `PrivateKey.sharedSecret(with:)` refuses that.
    /// - Complexity: O(1): 255 ladder steps and one inversion.
    package static func scalarMultiply(_ scalar: [UInt8], _ u: [UInt8]) throws(CryptoError) -> [UInt8] {
        try CryptoError.check(scalar, count: byteCount, what: "X25519 scalar")
        try CryptoError.check(u, count: byteCount, what: "X25519 u-coordinate")
        var k = scalar
        k[0] &= 248
        k[31] &= 127
        k[31] |= 64
        let x1 = u.withUnsafeBytes { FieldElement25519(bytes: $0) }
        return ladder(clampedScalar: k, x1).bytes
    }

    /// The Montgomery ladder of RFC 7748 section 5 over the clamped scalar `k`, from u = `x1`.
    ///
    /// - Complexity: O(1).
    static func ladder(clampedScalar k: [UInt8], _ x1: FieldElement25519) -> FieldElement25519 {
        var x2 = FieldElement25519.one, z2 = FieldElement25519.zero
        var x3 = x1, z3 = FieldElement25519.one
        var swap: UInt64 = 0
        k.withUnsafeBufferPointer { scalar in
            for t in stride(from: 254, through: 0, by: -1) {
                let bit = UInt64(scalar[t >> 3] >> UInt8(t & 7)) & 1
                swap ^= bit
                FieldElement25519.conditionalSwap(&x2, &x3, bit: swap)
                FieldElement25519.conditionalSwap(&z2, &z3, bit: swap)
                swap = bit

                let a = x2 + z2
                let aa = a.squared()
                let b = x2 - z2
                let bb = b.squared()
                let e = aa - bb
                let c = x3 + z3
                let d = x3 - z3
                let da = d * a
                let cb = c * b
                x3 = (da + cb).squared()
                z3 = x1 * (da - cb).squared()
                x2 = aa * bb
                z2 = e * (aa + e.times121665())
            }
        }
        FieldElement25519.conditionalSwap(&x2, &x3, bit: swap)
        FieldElement25519.conditionalSwap(&z2, &z3, bit: swap)
        return x2 * z2.inverted()
    }
}

/// What Ed25519's twisted Edwards arithmetic needs of the field beyond X25519's ladder: negation,
/// masked selection, the sign and zero tests of RFC 8032's encoding, the square-root exponent,
/// and the curve's constants.
extension FieldElement25519 {
    /// The element with the 32 little-endian bytes `bytes` (bit 255 ignored).
    init(_ bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { FieldElement25519(bytes: $0) }
    }

    /// d = -121665 / 121666, the twisted Edwards curve constant of edwards25519.
    static let d = FieldElement25519(hex: "a3785913ca4deb75abd841414d0a700098e879777940c78c73fe6f2bee6c0352")
    /// 2·d, as the addition formulas use it.
    static let d2 = FieldElement25519(hex: "59f1b226949bd6eb56b183829a14e00030d1f3eef2808e19e7fcdf56dcd90624")
    /// A square root of -1: 2^((p - 1) / 4).
    static let sqrtMinusOne = FieldElement25519(hex: "b0a00e4a271beec478e42fad0618432fa7d7fb3d99004d2b0bdfc14f8024832b")

    /// The element with these 64 hexadecimal digits (little-endian bytes): constants only.
    private init(hex: String) {
        let digits = Array(hex.utf8)
        let bytes = (0..<32).map { index -> UInt8 in
            let high = digits[2 * index], low = digits[2 * index + 1]
            func value(_ digit: UInt8) -> UInt8 { digit <= 57 ? digit - 48 : digit - 87 }
            return value(high) << 4 | value(low)
        }
        self.init(bytes)
    }

    /// -self.
    @inline(__always)
    var negated: Self { .zero - self }

    /// Whether the canonical value is odd: RFC 8032's "negative" x, the sign bit of an encoding.
    /// Constant time.
    var isNegative: UInt64 { UInt64(bytes[0] & 1) }

    /// Whether the value is 0 mod p. Not constant time: decoding public points only.
    var isZero: Bool { bytes.allSatisfy { $0 == 0 } }

    /// Sets self to `other` when `bit` is 1, leaves it when `bit` is 0, by masking: no branch on `bit`.
    @inline(__always)
    mutating func assign(_ other: Self, if bit: UInt64) {
        let m = 0 &- bit
        l0 ^= m & (l0 ^ other.l0); l1 ^= m & (l1 ^ other.l1); l2 ^= m & (l2 ^ other.l2)
        l3 ^= m & (l3 ^ other.l3); l4 ^= m & (l4 ^ other.l4)
    }

    /// self^((p - 5) / 8) = self^(2^252 - 3), the exponent of RFC 8032 section 5.1.3's square
    /// root, with the fixed chain of `inverted()` up to 2^250 - 1.
    func raisedToPMinus5Over8() -> Self {
        raisedTo2Pow250Minus1().0.squared(times: 2) * self  // 2^252 - 4 + 1
    }
}

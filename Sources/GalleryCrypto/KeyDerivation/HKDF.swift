/// HKDF with HMAC-SHA256 (RFC 5869): extract a pseudorandom key from input keying material and a
/// salt, then expand it into as many bytes as needed, bound to `info`.
///
/// Noise's HKDF(chaining_key, input_key_material, n) is `extract(salt: chaining_key, ...)` then
/// `expand(..., info: [], byteCount: 32·n)`. Constant time as HMAC-SHA256 is (SHA-256 has no
/// secret-dependent branch or index); only the lengths steer the loops.
package enum HKDF {
    /// The length of a pseudorandom key in bytes (32, SHA-256's output).
    package static let pseudorandomKeyByteCount = SHA256.byteCount

    /// HKDF-Extract(salt, IKM) = HMAC-SHA256(salt, IKM); an empty salt stands for 32 zero bytes.
    ///
    /// - Complexity: O(*n*) in the length of the keying material.
    package static func extract(salt: [UInt8], inputKeyMaterial: [UInt8]) -> [UInt8] {
        let key = salt.isEmpty ? [UInt8](repeating: 0, count: SHA256.byteCount) : salt
        return HMACSHA256.authenticationCode(for: inputKeyMaterial, key: key)
    }

    /// HKDF-Expand(PRK, info, L): T(1) | T(2) | ... cut to `byteCount` bytes, with
    /// T(i) = HMAC-SHA256(PRK, T(i-1) | info | i).
    ///
    /// Throws `CryptoError.derivedKeyTooLong` past 255 × 32 bytes (RFC 5869's limit) and
    /// `invalidLength` for a negative count.
    /// - Complexity: O(`byteCount` + *i*).
    package static func expand(pseudorandomKey: [UInt8], info: [UInt8], byteCount: Int) throws(CryptoError) -> [UInt8] {
        guard byteCount >= 0 else { throw .invalidLength(what: "HKDF output", expected: 0, actual: byteCount) }
        guard byteCount <= 255 * SHA256.byteCount else { throw .derivedKeyTooLong(requested: byteCount) }
        var output: [UInt8] = []
        output.reserveCapacity(byteCount)
        var previous: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < byteCount {
            previous = HMACSHA256.authenticationCode(for: previous + info + [counter], key: pseudorandomKey)
            output.append(contentsOf: previous.prefix(byteCount - output.count))
            counter &+= 1
        }
        return output
    }

    /// Extract then expand: `byteCount` bytes of key from `inputKeyMaterial`, `salt` and `info`.
    ///
    /// - Complexity: O(*n* + `byteCount`).
    package static func deriveKey(inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], byteCount: Int) throws(CryptoError) -> [UInt8] {
        try expand(pseudorandomKey: extract(salt: salt, inputKeyMaterial: inputKeyMaterial), info: info, byteCount: byteCount)
    }
}

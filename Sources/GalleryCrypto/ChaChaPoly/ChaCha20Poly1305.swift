/// The ChaCha20-Poly1305 AEAD of RFC 8439 (section 2.8): authenticated encryption of a message
/// with additional authenticated data, under a 32-byte key and a 12-byte nonce.
///
/// A sealed message is the ciphertext followed by the 16-byte tag. `open` checks the tag in
/// constant time before it decrypts anything, and returns nothing but an error on a mismatch.
///
/// **Constant time:** ChaCha20, Poly1305 and the tag comparison are (see each). Lengths are not
/// hidden. **A nonce must never repeat under one key**; `NoiseCipherState` counts them.
public struct ChaCha20Poly1305: Sendable {
    /// The 32-byte key.
    private let key: [UInt8]

    /// The length of a key (32), a nonce (12) and a tag (16) in bytes.
    public static let keyByteCount = 32, nonceByteCount = 12, tagByteCount = 16

    /// An AEAD under the 32-byte `key`; throws `CryptoError.invalidLength` otherwise.
    public init(key: [UInt8]) throws(CryptoError) {
        try CryptoError.check(key, count: Self.keyByteCount, what: "ChaCha20-Poly1305 key")
        self.key = key
    }

    /// `plaintext` encrypted, followed by the tag over `additionalData` and the ciphertext.
    ///
    /// Throws `CryptoError.invalidLength` for a nonce not 12 bytes long, `messageTooLong` past 256 GiB.
    /// - Complexity: O(*n* + *a*).
    public func seal(_ plaintext: [UInt8], nonce: [UInt8], authenticating additionalData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        let cipher = try ChaCha20(key: key, nonce: nonce)
        try ChaCha20.checkLength(plaintext.count, counter: 1)
        var sealed = [UInt8](unsafeUninitializedCapacity: plaintext.count + Self.tagByteCount) { buffer, count in
            plaintext.withUnsafeBytes { input in
                if let base = buffer.baseAddress { cipher.xor(input, into: UnsafeMutableRawPointer(base), counter: 1) }
            }
            count = plaintext.count
        }
        let tag = sealed.withUnsafeBytes { ciphertext in
            Self.tag(cipher: cipher, additionalData: additionalData, ciphertext: ciphertext)
        }
        sealed.append(contentsOf: tag)
        return sealed
    }

    /// The plaintext of `sealed` (ciphertext and tag), if the tag is right for it and `additionalData`.
    ///
    /// Throws `CryptoError.truncatedCiphertext` if `sealed` is shorter than a tag,
    /// `authenticationFailed` if the tag does not match (nothing is decrypted then), and
    /// `invalidLength` for a nonce not 12 bytes long.
    /// - Complexity: O(*n* + *a*).
    public func open(_ sealed: [UInt8], nonce: [UInt8], authenticating additionalData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        let cipher = try ChaCha20(key: key, nonce: nonce)
        guard sealed.count >= Self.tagByteCount else { throw .truncatedCiphertext(length: sealed.count) }
        let length = sealed.count - Self.tagByteCount
        try ChaCha20.checkLength(length, counter: 1)
        let plaintext: [UInt8]? = sealed.withUnsafeBytes { bytes in
            let ciphertext = UnsafeRawBufferPointer(rebasing: bytes[..<length])
            let expected = Self.tag(cipher: cipher, additionalData: additionalData, ciphertext: ciphertext)
            let matches = expected.withUnsafeBytes { ConstantTime.equals($0, UnsafeRawBufferPointer(rebasing: bytes[length...])) }
            guard matches else { return nil }
            return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                if let base = buffer.baseAddress { cipher.xor(ciphertext, into: UnsafeMutableRawPointer(base), counter: 1) }
                count = length
            }
        }
        guard let plaintext else { throw .authenticationFailed }
        return plaintext
    }

    /// The tag of RFC 8439 section 2.8: Poly1305 under the first 32 bytes of keystream block 0, over
    /// the additional data and the ciphertext, each padded to 16 bytes, then both lengths (64-bit LE).
    private static func tag(cipher: ChaCha20, additionalData: [UInt8], ciphertext: UnsafeRawBufferPointer) -> [UInt8] {
        let oneTimeKey = Array(cipher.block(counter: 0).prefix(32))
        // Cannot throw: the key is 32 bytes.
        var poly = try! Poly1305(key: oneTimeKey)
        poly.update(additionalData)
        poly.padToBlock()
        poly.update(ciphertext)
        poly.padToBlock()
        var lengths = [UInt8](repeating: 0, count: 16)
        for byte in 0..<8 {
            lengths[byte] = UInt8(truncatingIfNeeded: UInt64(additionalData.count) >> (8 * UInt64(byte)))
            lengths[8 + byte] = UInt8(truncatingIfNeeded: UInt64(ciphertext.count) >> (8 * UInt64(byte)))
        }
        poly.update(lengths)
        return poly.finalize()
    }
}

/// HMAC-SHA256 (RFC 2104): a 32-byte message authentication code under a shared secret key.
package enum HMACSHA256 {
    /// The length of a code in bytes (32).
    package static let byteCount = SHA256.byteCount

    /// The HMAC-SHA256 of `message` under `key`.
    ///
    /// A key longer than SHA-256's 64-byte block is hashed first, as RFC 2104 requires.
    /// - Complexity: O(*m* + *k*) in the lengths of the message and the key.
    package static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        var paddedKey = key.count > SHA256.blockByteCount ? SHA256.hash(key) : key
        paddedKey.append(contentsOf: repeatElement(0, count: SHA256.blockByteCount - paddedKey.count))

        var inner = SHA256()
        inner.update(paddedKey.lazy.map { $0 ^ 0x36 })
        inner.update(message)
        let innerDigest = inner.finalize()

        var outer = SHA256()
        outer.update(paddedKey.lazy.map { $0 ^ 0x5c })
        outer.update(innerDigest)
        return outer.finalize()
    }

    /// Whether `code` is the full 32-byte HMAC-SHA256 of `message` under `key`.
    ///
    /// The bytes are compared in constant time, so the time taken does not reveal how long a
    /// prefix of a forged code was right. Truncated codes are not accepted.
    /// - Complexity: O(*m* + *k*) in the lengths of the message and the key.
    package static func isValid(_ code: [UInt8], for message: [UInt8], key: [UInt8]) -> Bool {
        let expected = authenticationCode(for: message, key: key)
        guard code.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in expected.indices {
            difference |= code[index] ^ expected[index]
        }
        return difference == 0
    }
}

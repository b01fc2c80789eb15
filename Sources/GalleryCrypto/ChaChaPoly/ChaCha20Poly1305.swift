/// The ChaCha20-Poly1305 AEAD of RFC 8439 (section 2.8): authenticated encryption of a message
/// with additional authenticated data, under a 32-byte key and a 12-byte nonce.
///
/// A sealed message is the ciphertext followed by the 16-byte tag. `open` checks the tag in
/// constant time before it decrypts anything, and returns nothing but an error on a mismatch.
/// The key is parsed into ChaCha20's state words once, at `init`; each message only adds its nonce.
/// The record layer seals and opens in place (`seal(_:into:nonce:authenticating:)`), without arrays.
///
/// **Constant time:** ChaCha20, Poly1305 and the tag comparison are (see each). Lengths are not
/// hidden. **A nonce must never repeat under one key**; `NoiseCipherState` counts them.
package struct ChaCha20Poly1305: Sendable {
    /// ChaCha20's key words (state words 4-11).
    private let key: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    /// The ChaCha20 kernel that encrypts.
    package let kernel: ChaCha20.Kernel

    /// ChaCha20's nonce words (state words 13-15).
    typealias NonceWords = (UInt32, UInt32, UInt32)

    /// The length of a key (32), a nonce (12) and a tag (16) in bytes.
    package static let keyByteCount = 32, nonceByteCount = 12, tagByteCount = 16

    /// An AEAD under the 32-byte `key`, with ChaCha20's default kernel; throws
    /// `CryptoError.invalidLength` otherwise.
    package init(key: [UInt8]) throws(CryptoError) {
        try self.init(key: key, kernel: ChaCha20.defaultKernel)
    }

    /// An AEAD under the 32-byte `key` whose ChaCha20 runs on `kernel`; throws
    /// `CryptoError.invalidLength` for another key length, `unavailableKernel` if this CPU cannot
    /// run `kernel`.
    package init(key: [UInt8], kernel: ChaCha20.Kernel) throws(CryptoError) {
        try CryptoError.check(key, count: Self.keyByteCount, what: "ChaCha20-Poly1305 key")
        guard ChaCha20.isAvailable(kernel) else { throw .unavailableKernel(kernel.rawValue) }
        self.key = key.withUnsafeBytes { bytes in
            func word(_ index: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self).littleEndian }
            return (word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7))
        }
        self.kernel = kernel
    }

    /// The nonce words of a 12-byte `nonce`; throws `CryptoError.invalidLength` otherwise.
    static func nonceWords(_ nonce: [UInt8]) throws(CryptoError) -> NonceWords {
        try CryptoError.check(nonce, count: Self.nonceByteCount, what: "ChaCha20 nonce")
        return nonce.withUnsafeBytes { bytes in
            func word(_ index: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self).littleEndian }
            return (word(0), word(1), word(2))
        }
    }

    /// `plaintext` encrypted, followed by the tag over `additionalData` and the ciphertext.
    ///
    /// Throws `CryptoError.invalidLength` for a nonce not 12 bytes long, `messageTooLong` past 256 GiB.
    /// - Complexity: O(*n* + *a*).
    package func seal(_ plaintext: [UInt8], nonce: [UInt8], authenticating additionalData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        let words = try Self.nonceWords(nonce)
        try ChaCha20.checkLength(plaintext.count, counter: 1)
        return [UInt8](unsafeUninitializedCapacity: plaintext.count + Self.tagByteCount) { buffer, count in
            plaintext.withUnsafeBytes { input in
                additionalData.withUnsafeBytes { ad in
                    sealChecked(input, into: UnsafeMutableRawPointer(buffer.baseAddress!), nonce: words, authenticating: ad)
                }
            }
            count = plaintext.count + Self.tagByteCount
        }
    }

    /// The plaintext of `sealed` (ciphertext and tag), if the tag is right for it and `additionalData`.
    ///
    /// Throws `CryptoError.truncatedCiphertext` if `sealed` is shorter than a tag,
    /// `authenticationFailed` if the tag does not match (nothing is decrypted then), and
    /// `invalidLength` for a nonce not 12 bytes long.
    /// - Complexity: O(*n* + *a*).
    package func open(_ sealed: [UInt8], nonce: [UInt8], authenticating additionalData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        let words = try Self.nonceWords(nonce)
        guard sealed.count >= Self.tagByteCount else { throw .truncatedCiphertext(length: sealed.count) }
        let length = sealed.count - Self.tagByteCount
        try ChaCha20.checkLength(length, counter: 1)
        var opened = false
        let plaintext = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            sealed.withUnsafeBytes { input in
                additionalData.withUnsafeBytes { ad in
                    // An empty buffer may have no address; a dummy byte stands in (nothing is written).
                    var spare: UInt8 = 0
                    withUnsafeMutableBytes(of: &spare) { spareBytes in
                        let output = buffer.baseAddress.map { UnsafeMutableRawPointer($0) } ?? spareBytes.baseAddress!
                        opened = openChecked(input, into: output, nonce: words, authenticating: ad)
                    }
                }
            }
            count = opened ? length : 0
        }
        guard opened else { throw .authenticationFailed }
        return plaintext
    }

    /// Seals `plaintext` with the nonce words `nonce`: writes the ciphertext (`plaintext.count`
    /// bytes) then the tag (16) to `output`, which may be `plaintext`'s own memory.
    ///
    /// Throws `CryptoError.messageTooLong` past 256 GiB (nothing written then).
    /// - Complexity: O(*n* + *a*).
    func seal(_ plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, nonce: NonceWords,
              authenticating additionalData: UnsafeRawBufferPointer) throws(CryptoError) {
        try ChaCha20.checkLength(plaintext.count, counter: 1)
        sealChecked(plaintext, into: output, nonce: nonce, authenticating: additionalData)
    }

    /// Opens `sealed` (ciphertext and tag, at least 16 bytes) with the nonce words `nonce`: checks
    /// the tag, and only if it matches writes the plaintext (`sealed.count - 16` bytes) to
    /// `output`, which may be `sealed`'s own memory. Returns whether the tag matched.
    ///
    /// Throws `CryptoError.truncatedCiphertext` for fewer than 16 bytes, `messageTooLong` past 256 GiB.
    /// - Complexity: O(*n* + *a*).
    func open(_ sealed: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, nonce: NonceWords,
              authenticating additionalData: UnsafeRawBufferPointer) throws(CryptoError) -> Bool {
        guard sealed.count >= Self.tagByteCount else { throw .truncatedCiphertext(length: sealed.count) }
        try ChaCha20.checkLength(sealed.count - Self.tagByteCount, counter: 1)
        return openChecked(sealed, into: output, nonce: nonce, authenticating: additionalData)
    }

    /// `seal` once the length is known to fit the counter.
    private func sealChecked(_ plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, nonce: NonceWords,
                             authenticating additionalData: UnsafeRawBufferPointer) {
        let cipher = ChaCha20(key: key, nonce: nonce, kernel: kernel)
        cipher.xor(plaintext, into: output, counter: 1)
        let ciphertext = UnsafeRawBufferPointer(start: output, count: plaintext.count)
        Self.tag(cipher: cipher, additionalData: additionalData, ciphertext: ciphertext, into: output + plaintext.count)
    }

    /// `open` once the length is at least a tag and fits the counter.
    private func openChecked(_ sealed: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, nonce: NonceWords,
                             authenticating additionalData: UnsafeRawBufferPointer) -> Bool {
        let cipher = ChaCha20(key: key, nonce: nonce, kernel: kernel)
        let length = sealed.count - Self.tagByteCount
        let ciphertext = UnsafeRawBufferPointer(rebasing: sealed[..<length])
        var expected: (UInt64, UInt64) = (0, 0)
        let matches = withUnsafeMutableBytes(of: &expected) { tag in
            Self.tag(cipher: cipher, additionalData: additionalData, ciphertext: ciphertext, into: tag.baseAddress!)
            return ConstantTime.equals(UnsafeRawBufferPointer(tag), UnsafeRawBufferPointer(rebasing: sealed[length...]))
        }
        guard matches else { return false }
        cipher.xor(ciphertext, into: output, counter: 1)
        return true
    }

    /// The tag of RFC 8439 section 2.8, written as 16 bytes to `tag`: Poly1305 under the first 32
    /// bytes of keystream block 0, over the additional data and the ciphertext, each padded to 16
    /// bytes, then both lengths (64-bit LE).
    private static func tag(cipher: ChaCha20, additionalData: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer,
                            into tag: UnsafeMutableRawPointer) {
        // Keystream block 0 (only its first 32 bytes are the one-time key), on the stack.
        var block: (SIMD32<UInt8>, SIMD32<UInt8>) = (.zero, .zero)
        var poly = withUnsafeMutableBytes(of: &block) { bytes in
            cipher.xorOneBlock(bytes.baseAddress!, bytes.baseAddress!, length: ChaCha20.blockByteCount, counter: 0)
            return Poly1305(key: UnsafeRawPointer(bytes.baseAddress!), kernel: cipher.kernel)
        }
        block = (.zero, .zero)
        poly.updatePadded(additionalData)
        poly.updatePadded(ciphertext)
        var lengths = (UInt64(additionalData.count).littleEndian, UInt64(ciphertext.count).littleEndian)
        withUnsafeBytes(of: &lengths) { poly.updatePadded($0) }
        poly.finalize(into: tag)
    }
}

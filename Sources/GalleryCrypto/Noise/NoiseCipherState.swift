/// Noise's CipherState (spec rev. 34, section 5.1): a key k (or none) and a 64-bit nonce n, with
/// the ChaChaPoly cipher functions of section 12.3.
///
/// Encryption uses nonce n and then increments it; n = 2^64 - 1 is reserved (`rekey` uses it), so
/// reaching it throws `nonceExhausted` instead of wrapping. A failed decryption leaves n unchanged,
/// as the spec says. With no key, both directions pass the bytes through (the handshake's first
/// messages). The key is kept as its ChaCha20-Poly1305 schedule, made once per key (`rekey`
/// replaces it). Constant time as ChaCha20-Poly1305 is; the nonce and the lengths are public.
package struct NoiseCipherState: Sendable {
    /// k's AEAD, or nil when k is empty.
    private var cipher: ChaCha20Poly1305?
    /// n, the next nonce.
    package private(set) var nonce: UInt64 = 0

    /// The length of the authentication tag (16).
    package static let tagByteCount = ChaCha20Poly1305.tagByteCount

    /// A cipher state with key `key` (32 bytes) or none, and n = 0 (InitializeKey).
    init(key: [UInt8]?) {
        // Cannot throw: HKDF's outputs are 32 bytes.
        cipher = key.map { try! ChaCha20Poly1305(key: $0) }
    }

    /// A cipher state with no key: it passes bytes through, unsealed. Only for measuring what
    /// sealing costs (`gallery-bench transfer`); never used on a node's links.
    package static var unkeyed: NoiseCipherState { NoiseCipherState(key: nil) }

    /// Whether k is non-empty (HasKey).
    package var hasKey: Bool { cipher != nil }

    /// ENCRYPT(k, n++, ad, plaintext) if there is a key, else `plaintext` (EncryptWithAd).
    ///
    /// Throws `nonceExhausted` when n has reached 2^64 - 1.
    /// - Complexity: O(*n*).
    package mutating func encrypt(_ plaintext: [UInt8], authenticating ad: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let cipher else { return plaintext }
        guard nonce < UInt64.max else { throw .nonceExhausted }
        let sealed: [UInt8]
        do {
            sealed = try cipher.seal(plaintext, nonce: Self.nonceBytes(nonce), authenticating: ad)
        } catch {
            // Only a message past 256 GiB: far beyond Noise's 65,535 bytes.
            throw .messageTooLong(length: plaintext.count)
        }
        nonce += 1
        return sealed
    }

    /// ENCRYPT(k, n++, empty ad, plaintext) written to `output`: the ciphertext then the 16-byte
    /// tag (`plaintext.count + 16` bytes; `output` may be `plaintext`'s own memory); without a key,
    /// `plaintext` itself. Returns the number of bytes written.
    ///
    /// Throws `nonceExhausted` when n has reached 2^64 - 1 (nothing written).
    /// - Complexity: O(*n*).
    package mutating func encrypt(_ plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) throws(NoiseError) -> Int {
        guard let cipher else { return Self.passThrough(plaintext, into: output) }
        guard nonce < UInt64.max else { throw .nonceExhausted }
        do {
            try cipher.seal(plaintext, into: output, nonce: Self.nonceWords(nonce), authenticating: UnsafeRawBufferPointer(start: nil, count: 0))
        } catch {
            throw .messageTooLong(length: plaintext.count)
        }
        nonce += 1
        return plaintext.count + Self.tagByteCount
    }

    /// DECRYPT(k, n++, ad, ciphertext) if there is a key, else `ciphertext` (DecryptWithAd).
    ///
    /// Throws `authenticationFailed` (n unchanged) on a tag mismatch, `messageTooShort` for fewer
    /// bytes than a tag, `nonceExhausted` when n has reached 2^64 - 1.
    /// - Complexity: O(*n*).
    package mutating func decrypt(_ ciphertext: [UInt8], authenticating ad: [UInt8], handshakeMessage: Int? = nil) throws(NoiseError) -> [UInt8] {
        guard let cipher else { return ciphertext }
        guard nonce < UInt64.max else { throw .nonceExhausted }
        guard ciphertext.count >= Self.tagByteCount else {
            throw .messageTooShort(handshakeMessage: handshakeMessage, length: ciphertext.count, needed: Self.tagByteCount)
        }
        let plaintext: [UInt8]
        do {
            plaintext = try cipher.open(ciphertext, nonce: Self.nonceBytes(nonce), authenticating: ad)
        } catch {
            throw .authenticationFailed(handshakeMessage: handshakeMessage)
        }
        nonce += 1
        return plaintext
    }

    /// DECRYPT(k, n++, empty ad, ciphertext) written to `output`: checks the tag of `ciphertext`
    /// (ciphertext then tag), and only if it matches writes the plaintext (`ciphertext.count - 16`
    /// bytes, returned) to `output`, which may be `ciphertext`'s own memory; without a key,
    /// `ciphertext` itself.
    ///
    /// Throws `authenticationFailed` (n unchanged, nothing written) on a tag mismatch,
    /// `messageTooShort` for fewer bytes than a tag, `nonceExhausted`.
    /// - Complexity: O(*n*).
    package mutating func decrypt(_ ciphertext: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) throws(NoiseError) -> Int {
        guard let cipher else { return Self.passThrough(ciphertext, into: output) }
        guard nonce < UInt64.max else { throw .nonceExhausted }
        guard ciphertext.count >= Self.tagByteCount else {
            throw .messageTooShort(handshakeMessage: nil, length: ciphertext.count, needed: Self.tagByteCount)
        }
        let opened: Bool
        do {
            opened = try cipher.open(ciphertext, into: output, nonce: Self.nonceWords(nonce), authenticating: UnsafeRawBufferPointer(start: nil, count: 0))
        } catch {
            opened = false
        }
        guard opened else { throw .authenticationFailed(handshakeMessage: nil) }
        nonce += 1
        return ciphertext.count - Self.tagByteCount
    }

    /// Rekey(): k = the first 32 bytes of ENCRYPT(k, 2^64 - 1, empty, 32 zero bytes) (spec 4.2 and
    /// 5.1); n is unchanged. Does nothing without a key. Both peers must rekey at the same point of
    /// their streams; when is the application's choice (the spec leaves it so).
    package mutating func rekey() {
        guard let cipher else { return }
        // Cannot throw: the key is 32 bytes and the nonce 12.
        let sealed = try! cipher.seal([UInt8](repeating: 0, count: 32), nonce: Self.nonceBytes(UInt64.max))
        self.cipher = try! ChaCha20Poly1305(key: Array(sealed.prefix(32)), kernel: cipher.kernel)
    }

    /// Without a key, the bytes themselves: copied to `output` unless they are already there.
    private static func passThrough(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) -> Int {
        if let source = bytes.baseAddress, source != UnsafeRawPointer(output) {
            output.copyMemory(from: source, byteCount: bytes.count)
        }
        return bytes.count
    }

    /// ChaChaPoly's 96-bit nonce for n: 32 zero bits, then n little-endian (spec 12.3).
    static func nonceBytes(_ n: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 {
            bytes[4 + index] = UInt8(truncatingIfNeeded: n >> (8 * UInt64(index)))
        }
        return bytes
    }

    /// The same nonce as ChaCha20's state words 13-15.
    static func nonceWords(_ n: UInt64) -> ChaCha20Poly1305.NonceWords {
        (0, UInt32(truncatingIfNeeded: n), UInt32(truncatingIfNeeded: n >> 32))
    }

    /// Sets n (for tests of exhaustion; the protocol never does this).
    mutating func setNonce(_ n: UInt64) {
        nonce = n
    }
}

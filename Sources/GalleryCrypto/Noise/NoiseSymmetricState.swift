/// Noise's SymmetricState (spec rev. 34, section 5.2): the chaining key ck, the handshake hash h
/// and a CipherState, with SHA-256 as HASH and HKDF-SHA256 (RFC 5869, which is the spec's HKDF)
/// for key derivation.
struct NoiseSymmetricState: Sendable {
    /// ck.
    private var chainingKey: [UInt8]
    /// h.
    private(set) var handshakeHash: [UInt8]
    /// The CipherState.
    private(set) var cipher = NoiseCipherState(key: nil)

    /// InitializeSymmetric(protocol_name): h = the name padded with zeros to 32 bytes, or its
    /// SHA-256 if longer; ck = h; no key.
    init(protocolName: String) {
        let name = Array(protocolName.utf8)
        handshakeHash = name.count <= SHA256.byteCount
            ? name + [UInt8](repeating: 0, count: SHA256.byteCount - name.count)
            : SHA256.hash(name)
        chainingKey = handshakeHash
    }

    /// HKDF(ck, ikm, n) of spec section 4.3: `count` 32-byte outputs.
    private func hkdf(_ inputKeyMaterial: [UInt8], outputs count: Int) -> [[UInt8]] {
        let pseudorandomKey = HKDF.extract(salt: chainingKey, inputKeyMaterial: inputKeyMaterial)
        // Cannot throw: at most 96 bytes.
        let bytes = try! HKDF.expand(pseudorandomKey: pseudorandomKey, info: [], byteCount: 32 * count)
        return (0..<count).map { Array(bytes[(32 * $0)..<(32 * $0 + 32)]) }
    }

    /// MixKey(ikm): ck, k = HKDF(ck, ikm, 2); n = 0.
    mutating func mixKey(_ inputKeyMaterial: [UInt8]) {
        let outputs = hkdf(inputKeyMaterial, outputs: 2)
        chainingKey = outputs[0]
        cipher = NoiseCipherState(key: outputs[1])
    }

    /// MixHash(data): h = SHA-256(h || data).
    mutating func mixHash(_ data: [UInt8]) {
        var hasher = SHA256()
        hasher.update(handshakeHash)
        hasher.update(data)
        handshakeHash = hasher.finalize()
    }

    /// MixKeyAndHash(ikm): ck, temp_h, k = HKDF(ck, ikm, 3); MixHash(temp_h); n = 0 (the psk token).
    mutating func mixKeyAndHash(_ inputKeyMaterial: [UInt8]) {
        let outputs = hkdf(inputKeyMaterial, outputs: 3)
        chainingKey = outputs[0]
        mixHash(outputs[1])
        cipher = NoiseCipherState(key: outputs[2])
    }

    /// EncryptAndHash(plaintext): the ciphertext under ad = h, then MixHash(ciphertext).
    mutating func encryptAndHash(_ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        let ciphertext = try cipher.encrypt(plaintext, authenticating: handshakeHash)
        mixHash(ciphertext)
        return ciphertext
    }

    /// DecryptAndHash(ciphertext): the plaintext under ad = h, then MixHash(ciphertext).
    mutating func decryptAndHash(_ ciphertext: [UInt8], handshakeMessage: Int) throws(NoiseError) -> [UInt8] {
        let plaintext = try cipher.decrypt(ciphertext, authenticating: handshakeHash, handshakeMessage: handshakeMessage)
        mixHash(ciphertext)
        return plaintext
    }

    /// Split(): the two transport CipherStates from HKDF(ck, empty, 2), initiator-to-responder first.
    func split() -> (NoiseCipherState, NoiseCipherState) {
        let outputs = hkdf([], outputs: 2)
        return (NoiseCipherState(key: outputs[0]), NoiseCipherState(key: outputs[1]))
    }
}

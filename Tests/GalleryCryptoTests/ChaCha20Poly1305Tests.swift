@testable import GalleryCrypto
import GallerySimulation
import Testing

/// ChaCha20, Poly1305 and the AEAD against every vector of RFC 8439 (sections 2.3.2-2.8.2 and
/// appendix A), random round trips against incremental and one-shot use, and the AEAD's refusals.
@Suite("ChaCha20-Poly1305 (RFC 8439)")
struct ChaCha20Poly1305Tests {
    @Test("Section 2.3.2: the block function")
    func block() throws {
        let cipher = try ChaCha20(key: Array(0...31), nonce: hex("000000090000004a00000000"))
        #expect(hex(cipher.block(counter: 1)) == "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e")
    }

    @Test("Section 2.4.2 and appendix A.1, A.2: ChaCha20", arguments: RFC8439Vectors.ciphers)
    func chacha(vector: RFC8439Vectors.Cipher) throws {
        let cipher = try ChaCha20(key: hex(vector.key), nonce: hex(vector.nonce))
        #expect(hex(try cipher.encrypt(hex(vector.plaintext), counter: vector.counter)) == vector.ciphertext, "\(vector.name)")
        #expect(hex(try cipher.encrypt(hex(vector.ciphertext), counter: vector.counter)) == vector.plaintext, "\(vector.name)")
    }

    @Test("Section 2.5.2 and appendix A.3: Poly1305, whole and fed in pieces", arguments: RFC8439Vectors.authenticators)
    func poly1305(vector: RFC8439Vectors.Authenticator) throws {
        let message = hex(vector.message)
        #expect(hex(try Poly1305.authenticationCode(for: message, key: hex(vector.key))) == vector.tag, "\(vector.name)")
        for split in [1, 7, 15, 16, 17, 33] where split < message.count {
            var poly = try Poly1305(key: hex(vector.key))
            var offset = 0
            while offset < message.count {
                poly.update(Array(message[offset..<min(offset + split, message.count)]))
                offset += split
            }
            #expect(hex(poly.finalize()) == vector.tag, "\(vector.name) in pieces of \(split)")
        }
    }

    @Test("Section 2.6.2 and appendix A.4: Poly1305 key generation", arguments: RFC8439Vectors.keyGenerations)
    func keyGeneration(vector: RFC8439Vectors.KeyGeneration) throws {
        let cipher = try ChaCha20(key: hex(vector.key), nonce: hex(vector.nonce))
        #expect(hex(Array(cipher.block(counter: 0).prefix(32))) == vector.oneTimeKey, "\(vector.name)")
    }

    @Test("Section 2.8.2 and appendix A.5: the AEAD seals and opens", arguments: RFC8439Vectors.aeads)
    func aead(vector: RFC8439Vectors.AEAD) throws {
        let aead = try ChaCha20Poly1305(key: hex(vector.key))
        let sealed = try aead.seal(hex(vector.plaintext), nonce: hex(vector.nonce), authenticating: hex(vector.additionalData))
        #expect(hex(sealed) == vector.sealed, "\(vector.name)")
        #expect(hex(try aead.open(hex(vector.sealed), nonce: hex(vector.nonce), authenticating: hex(vector.additionalData))) == vector.plaintext)
    }

    @Test("Random round trips: every length 0...600 and some long ones; the 4-block path equals the 1-block path")
    func roundTrips() throws {
        var generator = SeededGenerator(seed: 0xC4AC_4A20)
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let aead = try ChaCha20Poly1305(key: key)
        for length in Array(0...600) + [4096, 65_519, 100_003] {
            let plaintext = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let aad = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let sealed = try aead.seal(plaintext, nonce: nonce, authenticating: aad)
            #expect(sealed.count == length + 16)
            #expect(try aead.open(sealed, nonce: nonce, authenticating: aad) == plaintext)
            // The keystream of blocks 1... one block at a time must equal the bulk path.
            let cipher = try ChaCha20(key: key, nonce: nonce)
            var expected: [UInt8] = []
            var counter: UInt32 = 1
            while expected.count < length {
                expected += cipher.block(counter: counter)
                counter += 1
            }
            let keystream = zip(sealed.prefix(length), plaintext).map { $0 ^ $1 }
            #expect(keystream == Array(expected.prefix(length)), "length \(length)")
        }
    }

    @Test("Open refuses a flipped bit anywhere, other data, another nonce or key, and a cut message")
    func refusals() throws {
        let aead = try ChaCha20Poly1305(key: [UInt8](repeating: 7, count: 32))
        let nonce = [UInt8](repeating: 1, count: 12)
        let sealed = try aead.seal(Array("attack at dawn".utf8), nonce: nonce, authenticating: [1, 2, 3])
        for bit in 0..<(sealed.count * 8) {
            var tampered = sealed
            tampered[bit / 8] ^= 1 << (bit % 8)
            #expect(throws: CryptoError.authenticationFailed) { try aead.open(tampered, nonce: nonce, authenticating: [1, 2, 3]) }
        }
        #expect(throws: CryptoError.authenticationFailed) { try aead.open(sealed, nonce: nonce, authenticating: [1, 2]) }
        #expect(throws: CryptoError.authenticationFailed) { try aead.open(sealed, nonce: [UInt8](repeating: 2, count: 12), authenticating: [1, 2, 3]) }
        #expect(throws: CryptoError.authenticationFailed) {
            try ChaCha20Poly1305(key: [UInt8](repeating: 8, count: 32)).open(sealed, nonce: nonce, authenticating: [1, 2, 3])
        }
        #expect(throws: CryptoError.authenticationFailed) { try aead.open(Array(sealed.dropLast()), nonce: nonce, authenticating: [1, 2, 3]) }
        #expect(throws: CryptoError.truncatedCiphertext(length: 15)) { try aead.open(Array(sealed.prefix(15)), nonce: nonce) }
        #expect(throws: CryptoError.self) { try aead.open(sealed, nonce: [0, 1], authenticating: []) }
        #expect(throws: CryptoError.self) { try ChaCha20Poly1305(key: [1, 2, 3]) }
    }

    @Test("The ChaCha20 counter may not wrap: a message past block 2^32 - 1 is refused")
    func counterRange() throws {
        let cipher = try ChaCha20(key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12))
        #expect(try cipher.encrypt([UInt8](repeating: 0, count: 64), counter: .max).count == 64)
        #expect(throws: CryptoError.messageTooLong(length: 65)) { try cipher.encrypt([UInt8](repeating: 0, count: 65), counter: .max) }
    }

    @Test("Constant-time comparison: equal, different, and different lengths")
    func constantTime() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), []))
        #expect(ConstantTime.isAllZero([0, 0, 0]))
        #expect(!ConstantTime.isAllZero([0, 0x80, 0]))
    }
}

import Foundation
@testable import GalleryCrypto
import GallerySimulation
import Testing

/// Ed25519 against RFC 8032 section 7.1 (keys and signatures exactly, and verification), and the
/// edge cases a strict verifier must refuse (Wycheproof's kinds): non-canonical S, non-canonical
/// and invalid point encodings, small-order keys, every flipped bit, a signature only the
/// cofactored equation accepts; and a seeded sign/verify round trip.
@Suite("Ed25519 (RFC 8032)")
struct Ed25519Tests {
    @Test("RFC 8032 section 7.1: public key and signature from the seed, exactly; the signature verifies",
          arguments: RFC8032Vector.all)
    func rfcVectors(vector: RFC8032Vector) throws {
        let key = try Ed25519.PrivateKey(seed: hex(vector.seed))
        let message = hex(vector.message)
        #expect(hex(key.publicKey.rawRepresentation) == vector.publicKey)
        #expect(hex(key.signature(for: message)) == vector.signature)
        let publicKey = try Ed25519.PublicKey(rawRepresentation: hex(vector.publicKey))
        #expect(throws: Never.self) { try publicKey.verify(hex(vector.signature), for: message) }
        #expect(!publicKey.isValidSignature(hex(vector.signature), for: message + [0]))
    }

    @Test("Scalars mod L: the reduction of 2^512 - 1, and multiply-add at the extremes (checked with Python)")
    func scalars() {
        #expect(hex(Scalar25519.reduce([UInt8](repeating: 0xff, count: 64)))
            == "000f9c44e31106a447938568a71b0ed065bef517d273ecce3d9a307c1b419903")
        let order = hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        var orderMinusOne = order
        orderMinusOne[0] -= 1
        // (L-1)·(L-1) + (L-1) = (L-1)·L ≡ 0.
        #expect(Scalar25519.multiplyAdd(orderMinusOne, orderMinusOne, orderMinusOne) == [UInt8](repeating: 0, count: 32))
        var top = [UInt8](repeating: 0xff, count: 32)
        top[31] = 0x7f
        #expect(hex(Scalar25519.multiplyAdd(top, top, orderMinusOne))
            == "82a13c667280352cd8e7d4033b609ad19a6ffd85f41cbb738f260cdf4650e60c")
        #expect(!Scalar25519.isCanonical(order))
        #expect(Scalar25519.isCanonical(orderMinusOne))
    }

    @Test("S not below L is refused: S + L (the same S mod L), S = L, and S with its top bits set")
    func nonCanonicalS() throws {
        let vector = RFC8032Vector.all[1]
        let key = try Ed25519.PublicKey(rawRepresentation: hex(vector.publicKey))
        let message = hex(vector.message), signature = hex(vector.signature)
        let order = hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        var malleated = signature
        var carry = 0
        for index in 0..<32 {
            let sum = Int(signature[32 + index]) + Int(order[index]) + carry
            malleated[32 + index] = UInt8(sum & 0xff)
            carry = sum >> 8
        }
        #expect(throws: Ed25519.VerificationError.nonCanonicalScalar) { try key.verify(malleated, for: message) }
        #expect(throws: Ed25519.VerificationError.nonCanonicalScalar) {
            try key.verify(Array(signature[0..<32]) + order, for: message)
        }
        var high = signature
        high[63] |= 0xe0
        #expect(throws: Ed25519.VerificationError.nonCanonicalScalar) { try key.verify(high, for: message) }
        #expect(throws: Ed25519.VerificationError.invalidLength(63)) { try key.verify(Array(signature.dropLast()), for: message) }
    }

    @Test("Public keys of small order are refused (all eight torsion points, both signs where x != 0)", arguments: [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000080",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ])
    func smallOrderKeys(encoding: String) {
        #expect(EdwardsPoint(decoding: hex(encoding)) != nil, "a point")
        #expect(throws: CryptoError.invalidPublicKey(reason: "a point of small order")) {
            try Ed25519.PublicKey(rawRepresentation: hex(encoding))
        }
    }

    @Test("Encodings that are not canonical points are refused: y >= p, x = 0 with the sign bit, y off the curve", arguments: [
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = p (0, non-canonically)
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = p + 1 (1, non-canonically)
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = 2^255 - 1
        "0100000000000000000000000000000000000000000000000000000000000080",  // y = 1, x = 0, sign 1
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  // y = -1, x = 0, sign 1
        "0200000000000000000000000000000000000000000000000000000000000000",  // y = 2: no x
    ])
    func invalidEncodings(encoding: String) {
        #expect(EdwardsPoint(decoding: hex(encoding)) == nil)
        #expect(throws: CryptoError.invalidPublicKey(reason: "not the canonical encoding of a curve point")) {
            try Ed25519.PublicKey(rawRepresentation: hex(encoding))
        }
    }

    @Test("A non-canonical R never verifies: R = y + p for a small y, with any S")
    func nonCanonicalR() throws {
        let key = try Ed25519.PrivateKey(seed: hex(RFC8032Vector.all[0].seed)).publicKey
        let r = hex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
        for s in [0, 1, 2] {
            var signature = r + [UInt8](repeating: 0, count: 32)
            signature[32] = UInt8(s)
            #expect(throws: Ed25519.VerificationError.mismatch) { try key.verify(signature, for: [1, 2, 3]) }
        }
    }

    @Test("Every single flipped bit of a signature, and of its message, is refused")
    func flippedBits() throws {
        let vector = RFC8032Vector.all[2]
        let key = try Ed25519.PublicKey(rawRepresentation: hex(vector.publicKey))
        let message = hex(vector.message), signature = hex(vector.signature)
        for bit in 0..<512 {
            var damaged = signature
            damaged[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!key.isValidSignature(damaged, for: message), "bit \(bit)")
        }
        for bit in 0..<(8 * message.count) {
            var damaged = message
            damaged[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!key.isValidSignature(signature, for: damaged), "message bit \(bit)")
        }
        var otherKey = hex(vector.publicKey)
        otherKey[0] ^= 1
        if let other = try? Ed25519.PublicKey(rawRepresentation: otherKey) {
            #expect(!other.isValidSignature(signature, for: message))
        }
    }

    /// R = [r]B + T with T of order 8, S = r + k·a: [8]([S]B) = [8](R + [k]A) holds, [S]B = R + [k]A
    /// does not (made with Python for TEST 1's key and the message "cofactor").
    @Test("The equation is the cofactorless one: a signature only the cofactored equation accepts is refused")
    func cofactorless() throws {
        let key = try Ed25519.PrivateKey(seed: hex(RFC8032Vector.all[0].seed)).publicKey
        let signature = hex("1dd960b291c53514fece1341fc0dcd8a648b3934c2c533666f737a654ff1e1bf"
            + "19ded33a75c9bdcab498ddb5237e4e889fb306ae30920dcf4f70446d958cca08")
        #expect(throws: Ed25519.VerificationError.mismatch) { try key.verify(signature, for: Array("cofactor".utf8)) }
    }

    @Test("Seeded round trip: 200 keys sign messages of 0-300 bytes, each verifies, another key or message does not")
    func roundTrip() throws {
        var generator = SeededGenerator(seed: 0xed25519)
        var previous: Ed25519.PrivateKey?
        for _ in 0..<200 {
            let key = Ed25519.PrivateKey(using: &generator)
            let message = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let signature = key.signature(for: message)
            #expect(signature.count == 64)
            #expect(key.signature(for: message) == signature, "deterministic")
            let publicKey = try Ed25519.PublicKey(rawRepresentation: key.publicKey.rawRepresentation)
            #expect(publicKey.isValidSignature(signature, for: message))
            #expect(!publicKey.isValidSignature(signature, for: message + [0x01]))
            if let previous {
                #expect(!previous.publicKey.isValidSignature(signature, for: message))
            }
            previous = key
        }
    }

    @Test("The fixed-base multiplication agrees with the variable-time one ([k]B both ways)")
    func baseMultiplication() {
        var generator = SeededGenerator(seed: 8032)
        for _ in 0..<32 {
            var k = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            k[31] &= 0x0f
            let fixed = EdwardsPoint.multiplyBase(k).encoded
            let zero = [UInt8](repeating: 0, count: 32)
            let variable = EdwardsPoint.base.multiplyVartime(zero, plusBaseTimes: k).encoded
            #expect(fixed == variable)
            #expect(EdwardsPoint.base.multiplyVartime(k, plusBaseTimes: zero).encoded == fixed)
        }
    }

    @Test("Lengths and descriptions: a wrong seed or key length throws; the private key never prints its seed")
    func lengthsAndDescription() throws {
        #expect(throws: CryptoError.invalidLength(what: "Ed25519 seed", expected: 32, actual: 31)) {
            try Ed25519.PrivateKey(seed: [UInt8](repeating: 1, count: 31))
        }
        #expect(throws: CryptoError.invalidLength(what: "Ed25519 public key", expected: 32, actual: 33)) {
            try Ed25519.PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 33))
        }
        let key = try Ed25519.PrivateKey(seed: hex(RFC8032Vector.all[0].seed))
        #expect(!key.description.contains(RFC8032Vector.all[0].seed))
        #expect(key.description.contains(RFC8032Vector.all[0].publicKey))
    }
}

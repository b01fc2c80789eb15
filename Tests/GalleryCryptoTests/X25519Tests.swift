import Foundation
@testable import GalleryCrypto
import Testing

/// X25519 against RFC 7748: the two vectors of section 5.2, the iterated test (1 and 1,000
/// iterations; 1,000,000 when `GALLERY_X25519_MILLION=1`), the Diffie-Hellman example of section
/// 6.1; and the checks around it (lengths, small-order points, the top bit of u).
@Suite("X25519 (RFC 7748)")
struct X25519Tests {
    /// Section 5.2: scalar, u-coordinate, result.
    @Test("RFC 7748 section 5.2 vectors", arguments: [
        ("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
         "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
         "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"),
        ("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
         "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
         "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"),
    ])
    func vectors(scalar: String, u: String, expected: String) throws {
        #expect(hex(try X25519.scalarMultiply(hex(scalar), hex(u))) == expected)
    }

    /// Runs the iterated test of section 5.2 for `iterations`: k = X25519(k, u), u = old k.
    static func iterate(_ iterations: Int) throws -> String {
        var k = X25519.basePoint
        var u = X25519.basePoint
        for _ in 0..<iterations {
            (k, u) = (try X25519.scalarMultiply(k, u), k)
        }
        return hex(k)
    }

    @Test("RFC 7748 section 5.2 iterated: after 1 and 1,000 iterations")
    func iterated() throws {
        #expect(try Self.iterate(1) == "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079")
        #expect(try Self.iterate(1000) == "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51")
    }

    @Test("RFC 7748 section 5.2 iterated: after 1,000,000 iterations (opt-in: GALLERY_X25519_MILLION=1)",
          .enabled(if: ProcessInfo.processInfo.environment["GALLERY_X25519_MILLION"] == "1"))
    func iteratedMillion() throws {
        #expect(try Self.iterate(1_000_000) == "7c3911e0ab2586fd864497297e575e6f3bc601c0883c30df5f4dd2d24f665424")
    }

    @Test("RFC 7748 section 6.1: both public keys and the shared secret, from either side")
    func diffieHellman() throws {
        let alice = try X25519.PrivateKey(rawRepresentation: hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try X25519.PrivateKey(rawRepresentation: hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        #expect(hex(alice.publicKey.rawRepresentation) == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        #expect(hex(bob.publicKey.rawRepresentation) == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        #expect(hex(try alice.sharedSecret(with: bob.publicKey)) == shared)
        #expect(hex(try bob.sharedSecret(with: alice.publicKey)) == shared)
    }

    @Test("Random key pairs agree on the secret, and new keys differ")
    func randomAgreement() throws {
        for _ in 0..<8 {
            let a = X25519.PrivateKey(), b = X25519.PrivateKey()
            #expect(a.rawRepresentation != b.rawRepresentation)
            #expect(try a.sharedSecret(with: b.publicKey) == b.sharedSecret(with: a.publicKey))
        }
    }

    @Test("Small-order public keys give the all-zero secret, which sharedSecret refuses",
          arguments: [
              "0000000000000000000000000000000000000000000000000000000000000000",
              "0100000000000000000000000000000000000000000000000000000000000000",
              "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
              "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
          ])
    func smallOrder(point: String) throws {
        let key = X25519.PrivateKey()
        #expect(try X25519.scalarMultiply(key.rawRepresentation, hex(point)) == [UInt8](repeating: 0, count: 32))
        #expect(throws: CryptoError.lowOrderPoint) {
            try key.sharedSecret(with: X25519.PublicKey(rawRepresentation: hex(point)))
        }
    }

    @Test("Bit 255 of u is ignored; p + 9 (non-canonical) acts as 9")
    func topBitAndNonCanonical() throws {
        let scalar = hex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4")
        var u = hex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c")
        let plain = try X25519.scalarMultiply(scalar, u)
        u[31] |= 0x80
        #expect(try X25519.scalarMultiply(scalar, u) == plain)
        // p + 9 = 2^255 - 10 as little-endian bytes.
        let pPlus9 = [0xf6] + [UInt8](repeating: 0xff, count: 30) + [0x7f]
        #expect(try X25519.scalarMultiply(scalar, pPlus9) == X25519.scalarMultiply(scalar, X25519.basePoint))
    }

    @Test("Wrong lengths throw, never trap")
    func lengths() {
        #expect(throws: CryptoError.invalidLength(what: "X25519 scalar", expected: 32, actual: 31)) {
            try X25519.scalarMultiply([UInt8](repeating: 1, count: 31), X25519.basePoint)
        }
        #expect(throws: CryptoError.self) { try X25519.PublicKey(rawRepresentation: []) }
        #expect(throws: CryptoError.self) { try X25519.PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 33)) }
    }

    @Test("A private key's description shows the public key, never the secret")
    func description() throws {
        let key = X25519.PrivateKey()
        #expect(!key.description.contains(hex(key.rawRepresentation)))
        #expect(key.description.contains(hex(key.publicKey.rawRepresentation)))
    }
}

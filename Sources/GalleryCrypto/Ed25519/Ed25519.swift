import Foundation

/// Ed25519 signatures (RFC 8032 section 5.1): keys from a 32-byte seed, deterministic signing,
/// strict verification.
///
/// **Verification rules** (what a valid signature is, so every node agrees):
/// - S must be below L (RFC 8032 section 5.1.7): a non-canonical S, such as S + L, is refused, so
///   a signature cannot be altered into another valid one.
/// - A and R must be canonical encodings of points (y < p, and not x = 0 with the sign bit set);
///   A must not be of small order (a key whose every multiple is in the 8-torsion makes signatures
///   that hold for any message). R of small order is allowed, as RFC 8032 allows it.
/// - The equation is the **cofactorless** one, [S]B = R + [k]A with k = SHA-512(R ‖ A ‖ M) mod L,
///   checked as encode([S]B - [k]A) == R byte for byte (R is compared by encoding, so a
///   non-canonical R never matches). This is RFC 8032's "sufficient" check, as in ref10,
///   libsodium and OpenSSL; for keys with a torsion component (never made by `PrivateKey`) the
///   cofactored check [8][S]B = [8]R + [8][k]A could accept what this refuses, never the reverse.
///
/// **Constant time:** everything that touches the seed, the secret scalar or the nonce: SHA-512,
/// the fixed-base multiplication (`EdwardsPoint.multiplyBase`), scalar reduction and
/// multiply-add mod L, encoding. Verification handles public values only and is variable time.
/// Secrets are Swift arrays and are not wiped after use (see `X25519`).
package enum Ed25519 {
    /// The length of a seed (private key) in bytes (32).
    package static let seedByteCount = 32
    /// The length of a public key in bytes (32).
    package static let publicKeyByteCount = 32
    /// The length of a signature in bytes (64): R, then S.
    package static let signatureByteCount = 64

    /// Why a signature was refused.
    package enum VerificationError: Error, Equatable, Sendable, LocalizedError {
        /// The signature was not 64 bytes.
        case invalidLength(Int)
        /// S was not below L.
        case nonCanonicalScalar
        /// The equation did not hold: another key, another message, or a damaged signature.
        case mismatch

        /// A one-line description.
        package var errorDescription: String? {
            switch self {
            case let .invalidLength(count): "an Ed25519 signature is 64 bytes, not \(count)"
            case .nonCanonicalScalar: "the signature's S is not below the group order (non-canonical)"
            case .mismatch: "the signature does not match the key and the message"
            }
        }
    }

    /// The secret scalar (clamped) and the nonce prefix of RFC 8032 section 5.1.5, from a seed.
    static func expand(seed: [UInt8]) -> (scalar: [UInt8], prefix: [UInt8]) {
        let digest = SHA512.hash(seed)
        var scalar = Array(digest[0..<32])
        scalar[0] &= 248
        scalar[31] &= 127
        scalar[31] |= 64
        return (scalar, Array(digest[32..<64]))
    }

    /// The signature of `message` (RFC 8032 section 5.1.6) by the key with secret `scalar`,
    /// `prefix` and encoded public key `publicKey`.
    static func sign(_ message: UnsafeRawBufferPointer, scalar: [UInt8], prefix: [UInt8], publicKey: [UInt8]) -> [UInt8] {
        var nonceHasher = SHA512()
        nonceHasher.update(prefix)
        nonceHasher.update(message)
        let r = Scalar25519.reduce(nonceHasher.finalize())
        let encodedR = EdwardsPoint.multiplyBase(r).encoded
        let k = challenge(r: encodedR, publicKey: publicKey, message: message)
        let s = Scalar25519.multiplyAdd(k, scalar, r)
        return encodedR + s
    }

    /// k = SHA-512(R ‖ A ‖ M) mod L.
    static func challenge(r: [UInt8], publicKey: [UInt8], message: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA512()
        hasher.update(r)
        hasher.update(publicKey)
        hasher.update(message)
        return Scalar25519.reduce(hasher.finalize())
    }

    /// Checks `signature` on `message` under the key `publicKey` whose point, negated, is
    /// `negatedKey` (RFC 8032 section 5.1.7, cofactorless; see the type's summary).
    static func verify(_ signature: [UInt8], _ message: UnsafeRawBufferPointer, publicKey: [UInt8],
                       negatedKey: EdwardsPoint) throws(VerificationError) {
        guard signature.count == signatureByteCount else { throw .invalidLength(signature.count) }
        let r = Array(signature[0..<32]), s = Array(signature[32..<64])
        guard Scalar25519.isCanonical(s) else { throw .nonCanonicalScalar }
        // A non-canonical R (y >= p) can never equal the canonical encoding computed below.
        let k = challenge(r: r, publicKey: publicKey, message: message)
        let computed = negatedKey.multiplyVartime(k, plusBaseTimes: s).encoded
        guard computed == r else { throw .mismatch }
    }
}

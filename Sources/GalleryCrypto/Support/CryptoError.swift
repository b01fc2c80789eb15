import Foundation

/// Why a primitive of `GalleryCrypto` refused its input.
///
/// Every failure of the primitives is one of these, thrown, never a trap: a key, nonce or tag of the
/// wrong length is input like any other.
package enum CryptoError: Error, Equatable, Sendable, LocalizedError {
    /// A key, nonce or tag had `actual` bytes where `expected` were needed.
    case invalidLength(what: String, expected: Int, actual: Int)
    /// A sealed message was shorter than its 16-byte tag.
    case truncatedCiphertext(length: Int)
    /// The tag did not match: the ciphertext, the associated data, the key or the nonce is not the one sealed.
    case authenticationFailed
    /// An X25519 result was all zeros: the peer's public key is a point of small order.
    case lowOrderPoint
    /// HKDF-Expand was asked for more than 255 × 32 bytes.
    case derivedKeyTooLong(requested: Int)
    /// A message longer than ChaCha20's 32-bit block counter can cover from its start (256 GiB).
    case messageTooLong(length: Int)
    /// An implementation (a kernel) this CPU cannot run was asked for by name.
    case unavailableKernel(String)

    /// A one-line description.
    package var errorDescription: String? {
        switch self {
        case let .invalidLength(what, expected, actual): "\(what) must be \(expected) bytes, not \(actual)"
        case let .truncatedCiphertext(length): "sealed message of \(length) bytes is shorter than its 16-byte tag"
        case .authenticationFailed: "authentication failed: the tag does not match"
        case .lowOrderPoint: "X25519 gave the all-zero secret: the peer's public key has small order"
        case let .derivedKeyTooLong(requested): "HKDF cannot derive \(requested) bytes (at most 8160)"
        case let .messageTooLong(length): "message of \(length) bytes is too long for one ChaCha20 nonce"
        case let .unavailableKernel(name): "the \(name) kernel does not run on this CPU"
        }
    }

    /// Throws `invalidLength` unless `bytes` has `expected` elements.
    static func check(_ bytes: some Collection<UInt8>, count expected: Int, what: String) throws(CryptoError) {
        guard bytes.count == expected else {
            throw .invalidLength(what: what, expected: expected, actual: bytes.count)
        }
    }
}

/// What an op carries to prove its author (protocol.md, "Signed ops"): the signature of its
/// author's chain up to it, and, on a replica's first op, the key that replica is bound to.
///
/// The model does not check seals (it has no cryptography): an `OpAuthenticator` does, for the
/// ops a replica receives, and makes them for the ops it authors. A seal is no part of the op's
/// identity: two copies of one op with and without a seal are the same op (`Op.unsealed`).
package struct OpSeal: Hashable, Sendable {
    /// The key a replica ID is bound to: its ID is derived from the key and the salt, so that no
    /// other key can claim it.
    package struct KeyClaim: Hashable, Sendable {
        /// The Ed25519 public key, 32 bytes.
        package var publicKey: [UInt8]
        /// The salt the replica ID was derived with (a new one per incarnation).
        package var salt: UInt64

        package init(publicKey: [UInt8], salt: UInt64) {
            self.publicKey = publicKey
            self.salt = salt
        }
    }

    /// The key claim, carried by a replica's first op (`previous` 0) only.
    package var keyClaim: KeyClaim?
    /// The 64-byte Ed25519 signature of the author's chain up to this op, or nil when a later
    /// op's signature covers it.
    package var signature: [UInt8]?

    package init(keyClaim: KeyClaim? = nil, signature: [UInt8]? = nil) {
        self.keyClaim = keyClaim
        self.signature = signature
    }

    /// Whether the seal carries nothing (then it is not encoded).
    package var isEmpty: Bool { keyClaim == nil && signature == nil }

    /// The length of a public key and of a signature in bytes.
    package static let publicKeyBytes = 32
    package static let signatureBytes = 64
    /// The most bytes a seal adds to an op's encoding: flags, key and salt, signature.
    package static let maxEncodedBytes = 1 + 32 + 8 + 64
}

extension Op {
    /// The op without its seal: what its identity, its canonical encoding for duplicates and its
    /// author's chain hash are made of.
    package var unsealed: Op {
        var copy = self
        copy.seal = nil
        return copy
    }
}

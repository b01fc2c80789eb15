extension Ed25519 {
    /// An Ed25519 private key: a 32-byte seed (RFC 8032 section 5.1.5), with what signing needs
    /// derived from it once.
    ///
    /// `description` never prints the seed.
    package struct PrivateKey: Sendable, CustomStringConvertible {
        /// The 32 secret bytes.
        package let seed: [UInt8]
        /// The matching public key.
        package let publicKey: PublicKey
        /// The clamped secret scalar, the first half of SHA-512(seed).
        private let scalar: [UInt8]
        /// The nonce prefix, the second half of SHA-512(seed).
        private let prefix: [UInt8]

        /// A new key from the system's cryptographically secure generator.
        package init() {
            var generator = SystemRandomNumberGenerator()
            self.init(using: &generator)
        }

        /// A new key of 32 bytes drawn from `generator`: a cryptographically secure one in
        /// production; a seeded one only where runs must replay.
        package init(using generator: inout some RandomNumberGenerator) {
            let bytes = (0..<4).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
            // Cannot throw: 32 bytes.
            self = try! PrivateKey(seed: bytes)
        }

        /// The key with this 32-byte seed; throws `CryptoError.invalidLength` for another length.
        package init(seed: [UInt8]) throws(CryptoError) {
            try CryptoError.check(seed, count: Ed25519.seedByteCount, what: "Ed25519 seed")
            self.seed = seed
            (scalar, prefix) = Ed25519.expand(seed: seed)
            let point = EdwardsPoint.multiplyBase(scalar)
            publicKey = PublicKey(encoded: point.encoded, point: point)
        }

        /// The 64-byte signature of `message`.
        /// - Complexity: O(*n*) in the message's length, plus one fixed-base multiplication.
        package func signature(for message: [UInt8]) -> [UInt8] {
            message.withUnsafeBytes { signature(for: $0) }
        }

        /// The 64-byte signature of the bytes at `message`.
        package func signature(for message: UnsafeRawBufferPointer) -> [UInt8] {
            Ed25519.sign(message, scalar: scalar, prefix: prefix, publicKey: publicKey.rawRepresentation)
        }

        /// "Ed25519.PrivateKey(public: <hex>)": never the seed.
        package var description: String { "Ed25519.PrivateKey(public: \(publicKey))" }
    }

    /// An Ed25519 public key: the 32-byte encoding of a point A, checked when made.
    package struct PublicKey: Sendable, Hashable, CustomStringConvertible {
        /// The 32 bytes.
        package let rawRepresentation: [UInt8]
        /// -A, as verification uses it.
        private let negatedPoint: EdwardsPoint

        /// The key with these 32 bytes.
        ///
        /// Throws `CryptoError.invalidLength` for another length, and `CryptoError.invalidPublicKey`
        /// if they are not the canonical encoding of a point, or encode a point of small order.
        package init(rawRepresentation bytes: [UInt8]) throws(CryptoError) {
            try CryptoError.check(bytes, count: Ed25519.publicKeyByteCount, what: "Ed25519 public key")
            guard let point = EdwardsPoint(decoding: bytes) else {
                throw .invalidPublicKey(reason: "not the canonical encoding of a curve point")
            }
            guard !point.hasSmallOrder else { throw .invalidPublicKey(reason: "a point of small order") }
            self.init(encoded: bytes, point: point)
        }

        /// A key from its encoding and point, known to match.
        init(encoded: [UInt8], point: EdwardsPoint) {
            rawRepresentation = encoded
            negatedPoint = point.negated
        }

        /// Whether `signature` is this key's signature of `message` (see `verify`).
        package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            (try? verify(signature, for: message)) != nil
        }

        /// Checks that `signature` is this key's signature of `message`, with the rules of
        /// `Ed25519` (S below L, cofactorless equation); throws why not.
        /// - Complexity: O(*n*) in the message's length, plus one double-scalar multiplication.
        package func verify(_ signature: [UInt8], for message: [UInt8]) throws(VerificationError) {
            let failure: VerificationError? = message.withUnsafeBytes { buffer in
                do throws(VerificationError) {
                    try verify(signature, for: buffer)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
        }

        /// Checks `signature` on the bytes at `message`.
        package func verify(_ signature: [UInt8], for message: UnsafeRawBufferPointer) throws(VerificationError) {
            try Ed25519.verify(signature, message, publicKey: rawRepresentation, negatedKey: negatedPoint)
        }

        package static func == (a: PublicKey, b: PublicKey) -> Bool { a.rawRepresentation == b.rawRepresentation }
        package func hash(into hasher: inout Hasher) { hasher.combine(rawRepresentation) }

        /// The key in lowercase hexadecimal.
        package var description: String { SHA256.hex(rawRepresentation) }
    }
}

extension X25519 {
    /// An X25519 private key: 32 random bytes (clamped when used, as RFC 7748 says).
    ///
    /// The bytes are kept as given; `description` never prints them.
    package struct PrivateKey: Sendable, CustomStringConvertible {
        /// The 32 secret bytes.
        package let rawRepresentation: [UInt8]
        /// The matching public key, X25519(key, 9).
        package let publicKey: PublicKey

        /// A new key from the system's cryptographically secure generator
        /// (`SystemRandomNumberGenerator`: getrandom(2) on Linux, arc4random on Apple platforms).
        package init() {
            var generator = SystemRandomNumberGenerator()
            self.init(using: &generator)
        }

        /// A new key of 32 bytes drawn from `generator`: a cryptographically secure one in
        /// production; a seeded one only where runs must replay (the mesh simulation).
        package init(using generator: inout some RandomNumberGenerator) {
            let bytes = (0..<4).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
            // Cannot throw: 32 bytes.
            self = try! PrivateKey(rawRepresentation: bytes)
        }

        /// The key with these 32 bytes; throws `CryptoError.invalidLength` for another length.
        package init(rawRepresentation bytes: [UInt8]) throws(CryptoError) {
            try CryptoError.check(bytes, count: X25519.byteCount, what: "X25519 private key")
            rawRepresentation = bytes
            publicKey = PublicKey(unchecked: try X25519.scalarMultiply(bytes, X25519.basePoint))
        }

        /// The shared secret X25519(self, peer).
        ///
        /// Throws `CryptoError.lowOrderPoint` if it is all zeros (RFC 7748 section 6.1's check: a
        /// peer key of small order would make the secret known to everyone); the check is
        /// constant time in the bytes.
        /// - Complexity: O(1).
        package func sharedSecret(with peer: PublicKey) throws(CryptoError) -> [UInt8] {
            let secret = try X25519.scalarMultiply(rawRepresentation, peer.rawRepresentation)
            guard !ConstantTime.isAllZero(secret) else { throw .lowOrderPoint }
            return secret
        }

        /// "X25519.PrivateKey(public: <hex>)": never the secret bytes.
        package var description: String { "X25519.PrivateKey(public: \(publicKey))" }
    }

    /// An X25519 public key: a 32-byte u-coordinate.
    package struct PublicKey: Sendable, Hashable, CustomStringConvertible {
        /// The 32 bytes, little-endian u-coordinate.
        package let rawRepresentation: [UInt8]

        /// The key with these 32 bytes; throws `CryptoError.invalidLength` for another length.
        package init(rawRepresentation bytes: [UInt8]) throws(CryptoError) {
            try CryptoError.check(bytes, count: X25519.byteCount, what: "X25519 public key")
            rawRepresentation = bytes
        }

        /// A key from bytes already known to be 32 long.
        init(unchecked bytes: [UInt8]) {
            rawRepresentation = bytes
        }

        /// The key in lowercase hexadecimal.
        package var description: String { SHA256.hex(rawRepresentation) }
    }
}

import GalleryCrypto
import GalleryModel

/// The pieces of signed ops (protocol.md, "Signed ops"), pure: the signing key a node derives
/// from its node key, the replica ID bound to that key, the chain hash of a replica's ops, and
/// the message its signatures sign.
package enum OpSigning {
    /// The 16 bytes naming a space: the first 16 of SHA-256("gallerysync space id v1" || secret)
    /// (the space ID of http-api.md, in binary).
    package static func spaceID(ofSecret secret: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(Array("gallerysync space id v1".utf8) + secret).prefix(16))
    }

    /// The node's Ed25519 signing key: HKDF-SHA256 of its X25519 private key (salt empty,
    /// info "GallerySync signing key v4", 32 bytes) as the seed. No second key file: the signing
    /// key lives and dies with `node.key`.
    package static func signingKey(fromNodeKey nodeKey: X25519.PrivateKey) -> Ed25519.PrivateKey {
        // Cannot throw: 32 bytes of output, a 32-byte seed.
        let seed = try! HKDF.deriveKey(
            inputKeyMaterial: nodeKey.rawRepresentation, salt: [], info: Array("GallerySync signing key v4".utf8), byteCount: 32)
        return try! Ed25519.PrivateKey(seed: seed)
    }

    /// The replica ID bound to `publicKey` in a space: the first 8 bytes (as u64 LE) of
    /// SHA-256("GallerySync replica v4" || space ID || public key || salt as u64 LE). The salt is
    /// the node's, new at each incarnation.
    package static func replicaID(space: [UInt8], publicKey: [UInt8], salt: UInt64) -> ReplicaID {
        var hasher = SHA256()
        hasher.update(Array("GallerySync replica v4".utf8))
        hasher.update(space)
        hasher.update(publicKey)
        hasher.update(littleEndian(salt))
        let digest = hasher.finalize()
        return ReplicaID((0..<8).reduce(UInt64(0)) { $0 | UInt64(digest[$1]) << (8 * UInt64($1)) })
    }

    /// The chain hash before a replica's first op: SHA-256("GallerySync chain v4" || space ID ||
    /// replica ID u64 LE || public key).
    package static func genesis(space: [UInt8], replica: ReplicaID, publicKey: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(Array("GallerySync chain v4".utf8))
        hasher.update(space)
        hasher.update(littleEndian(replica.rawValue))
        hasher.update(publicKey)
        return hasher.finalize()
    }

    /// The chain hash after an op: SHA-256(the chain hash before it || its canonical encoding
    /// without seal).
    package static func chain(_ previous: [UInt8], _ op: Op) -> [UInt8] {
        var hasher = SHA256()
        previous.withUnsafeBytes { hasher.update($0) }
        OpCodec.withUnsealedEncoding(of: op) { hasher.update($0) }
        return hasher.finalize()
    }

    /// What a replica's key signs for its op `id`: "GallerySync op v4" (17 bytes) || replica ID
    /// u64 LE || counter u64 LE || the chain hash after the op.
    package static func message(_ id: OpID, chain: [UInt8]) -> [UInt8] {
        Array("GallerySync op v4".utf8) + littleEndian(id.replica.rawValue) + littleEndian(id.counter) + chain
    }

    private static func littleEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

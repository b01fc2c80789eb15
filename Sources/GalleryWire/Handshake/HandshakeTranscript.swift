import GalleryCrypto
import GalleryModel

/// The bytes each side's HMAC proof covers (protocol.md, "Authentication").
///
/// `"GallerySync auth v1"`, the role (`C` client, `S` server), the selected version (u16), the
/// client's and the server's nonces, and the client's and server's replica IDs (u64), so that a
/// proof is bound to one connection, one direction and both identities, and cannot be replayed.
struct HandshakeTranscript {
    var version: UInt16
    var clientNonce: [UInt8]
    var serverNonce: [UInt8]
    var clientReplica: ReplicaID
    var serverReplica: ReplicaID

    enum Role: UInt8 {
        case client = 0x43
        case server = 0x53
    }

    func bytes(for role: Role) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(Array("GallerySync auth v1".utf8))
        writer.byte(role.rawValue)
        writer.fixed16(version)
        writer.append(clientNonce)
        writer.append(serverNonce)
        writer.fixed64(clientReplica.rawValue)
        writer.fixed64(serverReplica.rawValue)
        return writer.bytes
    }

    func proof(for role: Role, secret: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(for: bytes(for: role), key: secret)
    }

    func verify(_ proof: [UInt8], from role: Role, secret: [UInt8]) -> Bool {
        HMACSHA256.isValid(proof, for: bytes(for: role), key: secret)
    }
}

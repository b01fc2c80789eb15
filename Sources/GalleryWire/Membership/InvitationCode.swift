import GalleryCrypto
import GalleryModel

/// What `gallery invite` prints and `gallery serve --join` takes (protocol.md, "Invitations"):
/// everything a newcomer needs to join a space, in one copyable line.
///
/// Binary form: `version:u8` (1), the one-time secret (16 bytes), the inviter's static X25519
/// public key (32 bytes, pinned by the newcomer), the space ID (16 bytes), `expires:u32` (seconds
/// since 1970), `count:u8` (1 to 8) addresses as `host:string port:u16`, then the CRC-32 of all
/// the bytes before it (`u32` LE: a mistyped code is told apart from a refused one). Text form:
/// `gsj1-` then the bytes in base64url without padding.
package struct InvitationCode: Hashable, Sendable {
    /// The text every code starts with.
    package static let prefix = "gsj1-"
    /// The most addresses one code carries.
    package static let maximumAddresses = 8
    /// The one-time secret's length.
    package static let secretLength = 16

    /// The one-time secret: the Noise PSK of the join handshake is derived from it.
    package var secret: [UInt8]
    /// The inviter's static public key: the newcomer refuses any other node.
    package var inviterKey: [UInt8]
    /// The space's ID (`OpSigning.spaceID` of its first secret).
    package var space: [UInt8]
    /// When the invitation expires, in seconds since 1970.
    package var expires: UInt32
    /// Where the inviter listens.
    package var addresses: [WireAddress]

    package init(secret: [UInt8], inviterKey: [UInt8], space: [UInt8], expires: UInt32, addresses: [WireAddress]) {
        self.secret = secret
        self.inviterKey = inviterKey
        self.space = space
        self.expires = expires
        self.addresses = addresses
    }

    /// The invitation's ID: the first 8 bytes of SHA-256("GallerySync invitation id" || secret),
    /// in hex. Names the invitation in logs and files without revealing its secret.
    package var id: String { Self.id(ofSecret: secret) }

    /// The ID of the invitation whose one-time secret is `secret`.
    package static func id(ofSecret secret: [UInt8]) -> String {
        SHA256.hex(SHA256.hash(Array("GallerySync invitation id".utf8) + secret).prefix(8))
    }

    /// The Noise PSK of a join handshake: HKDF-SHA256(IKM = one-time secret, salt = empty,
    /// info = "GallerySync invitation psk v4", L = 32). Never equal to a space's PSK.
    package static func presharedKey(secret: [UInt8]) -> [UInt8] {
        try! HKDF.deriveKey(inputKeyMaterial: secret, salt: [], info: Array("GallerySync invitation psk v4".utf8), byteCount: 32)
    }

    /// The binary form, checksum included.
    package var bytes: [UInt8] {
        var writer = ByteWriter()
        writer.byte(1)
        writer.append(secret)
        writer.append(inviterKey)
        writer.append(space)
        writer.fixed32(expires)
        let addresses = addresses.prefix(Self.maximumAddresses)
        writer.byte(UInt8(addresses.count))
        for address in addresses { address.write(into: &writer) }
        writer.fixed32(CRC32.checksum(writer.bytes))
        return writer.bytes
    }

    /// The text form: `gsj1-` and base64url without padding.
    package var text: String { Self.prefix + Base64URL.encode(bytes) }

    /// Reads a code from its text (surrounding spaces ignored).
    package init(text: String) throws(InvitationCodeError) {
        let trimmed = text.trimmingSpaces
        guard trimmed.hasPrefix(Self.prefix) else { throw .notACode("it does not start with \(Self.prefix)") }
        guard let bytes = Base64URL.decode(String(trimmed.dropFirst(Self.prefix.count))) else {
            throw .notACode("it has characters outside base64url")
        }
        try self.init(bytes: bytes)
    }

    /// Reads a code from its binary form, checksum first.
    package init(bytes: [UInt8]) throws(InvitationCodeError) {
        guard bytes.count >= 4 + 1 + 16 + 32 + 16 + 4 + 1 else { throw .damaged("it is too short (\(bytes.count) bytes)") }
        let body = Array(bytes.dropLast(4))
        let stored = bytes.suffix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        guard CRC32.checksum(body) == stored else { throw .damaged("its checksum does not match (mistyped or cut)") }
        var reader = ByteReader(body)
        do {
            let version = try reader.byte()
            guard version == 1 else { throw InvitationCodeError.unsupported(version) }
            secret = Array(try reader.bytes(Self.secretLength))
            inviterKey = Array(try reader.bytes(32))
            space = Array(try reader.bytes(16))
            expires = try reader.fixed32()
            let count = Int(try reader.byte())
            guard (1...Self.maximumAddresses).contains(count) else { throw InvitationCodeError.damaged("\(count) addresses") }
            var addresses: [WireAddress] = []
            for _ in 0..<count {
                let host = try reader.string(limit: AddressAnnouncement.maximumHostLength)
                guard !host.isEmpty else { throw InvitationCodeError.damaged("an empty host") }
                addresses.append(WireAddress(host: host, port: try reader.fixed16()))
            }
            self.addresses = addresses
            guard reader.isAtEnd else { throw InvitationCodeError.damaged("\(reader.remaining) bytes too many") }
        } catch let error as InvitationCodeError {
            throw error
        } catch {
            throw .damaged("\(error)")
        }
    }
}

/// Why a text is not a usable invitation code.
package enum InvitationCodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not a code at all.
    case notACode(String)
    /// A code, changed or cut on the way.
    case damaged(String)
    /// A code of a format this version does not know.
    case unsupported(UInt8)

    package var description: String {
        switch self {
        case .notACode(let why): "not an invitation code: \(why)"
        case .damaged(let why): "the invitation code is damaged: \(why)"
        case .unsupported(let version): "an invitation code of format \(version), which this version does not read"
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

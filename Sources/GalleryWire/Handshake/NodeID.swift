import GalleryCrypto

/// A node's ID: a short printable digest of its static public key (protocol.md, "Node identity").
///
/// The first 10 bytes (80 bits) of SHA-256("GallerySync node ID" || public key), in base32 (RFC
/// 4648 alphabet, lowercase, no padding): 16 characters. Logs, `status` and `peers` name peers
/// by it; two nodes with the same ID have the same key, short of a 2^80 search.
package struct NodeID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 16 characters.
    package let rawValue: String

    /// The ID of the node whose static public key is `key`.
    package init(key: X25519.PublicKey) {
        let digest = SHA256.hash(Array("GallerySync node ID".utf8) + key.rawRepresentation)
        rawValue = Self.base32(Array(digest.prefix(10)))
    }

    /// A node ID from its text (as `peers`, the address book and `forget` spell it): 16 characters
    /// of the base32 alphabet above; nil for anything else.
    package init?(rawValue: String) {
        let alphabet = Set("abcdefghijklmnopqrstuvwxyz234567".utf8)
        guard rawValue.utf8.count == 16, rawValue.utf8.allSatisfy(alphabet.contains) else { return nil }
        self.rawValue = rawValue
    }

    package var description: String { rawValue }

    package static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// RFC 4648 base32, lowercase, without padding.
    static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int(buffer >> UInt32(bits) & 31)])
            }
        }
        if bits > 0 { output.append(alphabet[Int(buffer << UInt32(5 - bits) & 31)]) }
        return String(decoding: output, as: UTF8.self)
    }
}

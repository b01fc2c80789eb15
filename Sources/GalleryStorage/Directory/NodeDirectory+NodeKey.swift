import Foundation
import GalleryCrypto
import GalleryIO
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The node's static X25519 key, `DIR/node.key` (protocol.md, "Node identity"): made at the first
/// start, kept for good. 73 bytes: the magic "GSNK", a format version (1), the 32-byte private key,
/// the 32-byte public key, and the CRC-32 of those 69 bytes (u32 little-endian). Mode 0600, written
/// through a temporary file, fsync, rename, and a sync of the directory.
extension NodeDirectory {
    /// The file's size.
    static let nodeKeyFileSize = 73
    private static let nodeKeyMagic = Array("GSNK".utf8)

    /// The key kept here, or a new one made and recorded when there is no file.
    ///
    /// - Throws: `ServerError.corruptNodeKey` when the file exists but its size, magic, version,
    ///   checksum, or public key (not the private key's) is wrong: a damaged identity is reported,
    ///   never silently replaced; `.io` when the file cannot be read or written.
    package func nodeKey() throws(ServerError) -> X25519.PrivateKey {
        let path = nodeKeyFile.path
        if let data = FileManager.default.contents(atPath: path) {
            return try Self.decodeNodeKey(Array(data), path: path)
        }
        guard access(path, F_OK) != 0 else { throw .io("cannot read \(path)") }
        let key = X25519.PrivateKey()
        try writePrivately(Self.encodeNodeKey(key), to: nodeKeyFile)
        let directory = Glibc_or_Darwin.open(url.path, O_RDONLY | O_CLOEXEC, 0)
        guard directory >= 0 else { throw .io("cannot open \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw .io("cannot sync \(url.path): \(String(cString: strerror(errno)))") }
        return key
    }

    /// The file's bytes for `key`.
    static func encodeNodeKey(_ key: X25519.PrivateKey) -> [UInt8] {
        let body = nodeKeyMagic + [1] + key.rawRepresentation + key.publicKey.rawRepresentation
        let checksum = CRC32.checksum(body)
        return body + (0..<4).map { UInt8(truncatingIfNeeded: checksum >> (8 * UInt32($0))) }
    }

    /// The key in `bytes`, checked.
    static func decodeNodeKey(_ bytes: [UInt8], path: String) throws(ServerError) -> X25519.PrivateKey {
        func corrupt(_ reason: String) -> ServerError { .corruptNodeKey(path: path, reason: reason) }
        guard bytes.count == nodeKeyFileSize else { throw corrupt("\(bytes.count) bytes, not \(nodeKeyFileSize)") }
        guard Array(bytes[0..<4]) == nodeKeyMagic else { throw corrupt("not a node key file") }
        guard bytes[4] == 1 else { throw corrupt("unknown format version \(bytes[4])") }
        let stored = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[69 + $1]) << (8 * UInt32($1)) }
        guard CRC32.checksum(Array(bytes[0..<69])) == stored else { throw corrupt("checksum mismatch") }
        guard let key = try? X25519.PrivateKey(rawRepresentation: Array(bytes[5..<37])),
              key.publicKey.rawRepresentation == Array(bytes[37..<69]) else {
            throw corrupt("the public key does not match the private key")
        }
        return key
    }
}

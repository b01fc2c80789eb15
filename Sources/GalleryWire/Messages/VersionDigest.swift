import GalleryCrypto
import GalleryModel

/// The periodic version exchange's cheap form (protocol.md, "Version exchange"): instead of its
/// whole version vector, a node sends a 16-byte digest of it; a peer whose vector hashes the same
/// holds the same ops and says nothing, one whose vector differs answers `differs`, and only then
/// does the sender send its full `sync_request`. Carried by `version_digest` frames (ignorable).
package enum VersionDigest: Hashable, Sendable {
    /// "I speak `version_digest`": sent once per connection, right after authentication; a node
    /// sends digests only to peers that said so (others get the full `sync_request` as before).
    case speaks
    /// "My version vector hashes to this" (`VersionDigest.byteCount` bytes).
    case digest([UInt8])
    /// "The digest you sent is not my vector's: send me your `sync_request`."
    case differs

    /// The bytes of a digest.
    package static let byteCount = 16

    /// The kind byte that starts the payload.
    var kind: UInt8 {
        switch self {
        case .speaks: 0
        case .digest: 1
        case .differs: 2
        }
    }

    /// The digest of `version`: the first 16 bytes of SHA-256 of its encoding in `sync_request`
    /// (count, then replica and counter per entry, replicas ascending).
    package static func of(_ version: VersionVector) -> [UInt8] {
        var writer = ByteWriter()
        Message.write(version, into: &writer)
        return Array(SHA256.hash(writer.bytes).prefix(byteCount))
    }

    /// The payload: the kind, then the digest for `digest`.
    func write(into writer: inout ByteWriter) {
        writer.byte(kind)
        if case .digest(let bytes) = self { writer.append(bytes) }
    }

    /// Reads a payload written by `write`.
    static func read(from reader: inout ByteReader) throws(DecodingError) -> VersionDigest {
        switch try reader.byte() {
        case 0: return .speaks
        case 1: return .digest(Array(try reader.bytes(byteCount)))
        case 2: return .differs
        case let kind: throw .invalidValue("version digest kind \(kind)")
        }
    }
}

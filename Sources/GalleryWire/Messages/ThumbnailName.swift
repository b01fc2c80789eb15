import GalleryModel

/// What names a thumbnail on the wire (protocol.md, section 8.1): the SHA-256 of the blob it is
/// made of and its long edge in pixels. Payload: `hash:32 size:varint` (size 1 to 65,535).
package struct ThumbnailName: Hashable, Sendable {
    /// SHA-256 of the original blob (32 bytes).
    package var hash: [UInt8]
    /// The thumbnail's long edge, in pixels.
    package var size: Int

    package init(hash: [UInt8], size: Int) {
        self.hash = hash
        self.size = size
    }

    /// Writes the payload's name part.
    func write(into writer: inout ByteWriter) {
        writer.append(hash)
        writer.varint(UInt64(size))
    }

    /// Reads a name written by `write`.
    static func read(from reader: inout ByteReader) throws(DecodingError) -> ThumbnailName {
        let hash = Array(try reader.bytes(32))
        let size = try reader.varint()
        guard (1...65_535).contains(size) else { throw .invalidValue("thumbnail size \(size)") }
        return ThumbnailName(hash: hash, size: Int(size))
    }
}

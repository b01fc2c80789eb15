import GalleryCrypto

/// Walks a PNG's chunks (length, type, data, CRC), checking each CRC.
struct PNGChunkReader {
    /// A chunk type: four ASCII letters as a big-endian word.
    struct ChunkType: Equatable {
        let value: UInt32

        static let header = ChunkType("IHDR")
        static let palette = ChunkType("PLTE")
        static let data = ChunkType("IDAT")
        static let end = ChunkType("IEND")
        static let transparency = ChunkType("tRNS")

        init(_ name: StaticString) {
            value = name.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
        }

        init(value: UInt32) {
            self.value = value
        }

        /// Critical chunks (first letter upper case) must be understood; ancillary ones may be skipped.
        var isCritical: Bool { value & 0x2000_0000 == 0 }

        /// Whether all four bytes are ASCII letters, as the specification requires.
        var isValid: Bool {
            (0..<4).allSatisfy { shift in
                let byte = UInt8(truncatingIfNeeded: value >> UInt32(shift * 8))
                return (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            }
        }

        var name: String {
            String(decoding: (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> UInt32($0 * 8)) }, as: UTF8.self)
        }
    }

    struct Chunk {
        let type: ChunkType
        let data: UnsafeRawBufferPointer
    }

    private let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    /// The next chunk, or nil at the end of the data.
    /// - Throws: `.truncated` for a chunk cut short, `.malformed` for a bad type, length or CRC.
    mutating func next() throws(ImageError) -> Chunk? {
        guard offset < bytes.count else { return nil }
        guard bytes.count - offset >= 12 else { throw .truncated("a chunk header at byte \(offset)") }
        let length = Int(word(at: offset))
        let type = ChunkType(value: word(at: offset + 4))
        guard length <= 0x7FFF_FFFF else { throw .malformed("chunk length \(length) above 2^31-1") }
        guard type.isValid else { throw .malformed("chunk type bytes at \(offset + 4) are not letters") }
        guard length <= bytes.count - offset - 12 else { throw .truncated("the \(type.name) chunk at byte \(offset)") }
        let data = UnsafeRawBufferPointer(rebasing: bytes[offset + 8..<offset + 8 + length])
        let stored = word(at: offset + 8 + length)
        let computed = CRC32.checksum(of: UnsafeRawBufferPointer(rebasing: bytes[offset + 4..<offset + 8 + length]))
        guard stored == computed else { throw .malformed("bad CRC on the \(type.name) chunk at byte \(offset)") }
        offset += 12 + length
        return Chunk(type: type, data: data)
    }

    private func word(at index: Int) -> UInt32 {
        bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

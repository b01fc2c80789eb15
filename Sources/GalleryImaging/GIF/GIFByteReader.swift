/// A bounds-checked cursor over a GIF's bytes: little-endian fields and data sub-blocks.
struct GIFByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func byte() throws(ImageError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated("GIF ends at byte \(offset)") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(ImageError) -> Int {
        let low = try byte()
        return Int(low) | Int(try byte()) << 8
    }

    mutating func bytes(_ count: Int) throws(ImageError) -> UnsafeRawBufferPointer {
        guard count <= remaining else { throw .truncated("GIF ends inside a \(count)-byte field at \(offset)") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    /// One data sub-block (a length byte, then that many bytes); empty for the terminator.
    mutating func subBlock() throws(ImageError) -> UnsafeRawBufferPointer {
        let count = Int(try byte())
        return try bytes(count)
    }

    /// Skips sub-blocks through the terminator.
    mutating func skipSubBlocks() throws(ImageError) {
        while try !subBlock().isEmpty {}
    }

    /// The data of every sub-block through the terminator, joined (at most the file's size).
    mutating func joinedSubBlocks() throws(ImageError) -> [UInt8] {
        var joined: [UInt8] = []
        while true {
            let block = try subBlock()
            if block.isEmpty { return joined }
            joined.append(contentsOf: block)
        }
    }
}

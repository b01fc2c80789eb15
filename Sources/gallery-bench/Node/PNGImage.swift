import GalleryCrypto
import GallerySimulation

/// Small, valid PNG files made in code: 8-bit RGB, each pixel from a seeded generator, the image
/// data in stored (uncompressed) deflate blocks, so that every file decodes and has its own hash.
enum PNGImage {
    /// A `width` x `height` PNG whose pixels come from `seed`.
    static func make(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (1 + 3 * width))
        for _ in 0..<height {
            raw.append(0)  // filter type: none
            for _ in 0..<(3 * width) { raw.append(UInt8(truncatingIfNeeded: random.next())) }
        }
        var header: [UInt8] = []
        append(UInt32(width), to: &header)
        append(UInt32(height), to: &header)
        header += [8, 2, 0, 0, 0]  // bit depth, RGB, deflate, adaptive filters, no interlace
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk("IHDR", header, to: &file)
        chunk("IDAT", zlibStored(raw), to: &file)
        chunk("IEND", [], to: &file)
        return file
    }

    /// A zlib stream of `data` in stored deflate blocks (at most 65,535 bytes each).
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let isLast = offset + length == data.count
            out.append(isLast ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        append(b << 16 | a, to: &out)
        return out
    }

    /// Appends a chunk: length, type, data, CRC32 of type and data.
    private static func chunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        append(UInt32(data.count), to: &file)
        let typed = Array(type.utf8) + data
        file += typed
        var crc = CRC32()
        crc.update(typed)
        append(crc.value, to: &file)
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

import Foundation
import GalleryCrypto

/// Small real PNG pictures for the fake nodes: soft two-colour gradients with a "sun", so that pages and
/// screenshots look like a gallery. Encoded by hand (stored deflate blocks, CRC-32, Adler-32).
enum TestPictures {
    /// Colour pairs (top left, bottom right) and a sun colour, chosen to sit well together.
    static let palettes: [(UInt32, UInt32, UInt32)] = [
        (0xF6D5A8, 0xD9707A, 0xFFF3DC), (0xA8D8F0, 0x3F6FB5, 0xFFFFFF), (0xC9E7C0, 0x4E8F6A, 0xFBF7D0),
        (0xF3C6D7, 0x8A5DB8, 0xFFE9F1), (0xFAE3B4, 0xE48F45, 0xFFFFFF), (0xBFE3E0, 0x2F7F86, 0xF3FFF9),
        (0xE2D6F5, 0x5A5FA8, 0xFFF6D8), (0xF2E5D5, 0x9C7654, 0xFFFFFF),
    ]

    /// A `width`×`height` PNG of palette `index` (mod the palette count).
    static func png(width: Int, height: Int, palette index: Int) -> [UInt8] {
        let (from, to, sun) = palettes[index % palettes.count]
        func channel(_ color: UInt32, _ shift: UInt32) -> Double { Double((color >> shift) & 0xFF) }
        var raw: [UInt8] = []
        raw.reserveCapacity((width * 3 + 1) * height)
        let sunX = Double(width) * (0.28 + 0.1 * Double(index % 4)), sunY = Double(height) * 0.38
        let radius = Double(min(width, height)) * 0.16
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width {
                let t: Double = Double(x) / Double(width) * 0.45 + Double(y) / Double(height) * 0.55
                let dx: Double = Double(x) - sunX, dy: Double = Double(y) - sunY
                let distance: Double = (dx * dx + dy * dy).squareRoot()
                let glow = max(0, min(1, (radius - distance) / 2 + 0.5))
                let wave: Double = sin(Double(x) / Double(width) * 6 + Double(index))
                let horizon: Double = Double(height) * (0.72 + 0.08 * wave)
                let hill: Double = Double(y) > horizon ? 0.18 : 0
                for shift: UInt32 in [16, 8, 0] {
                    let base = channel(from, shift) * (1 - t) + channel(to, shift) * t
                    let lit = base * (1 - glow) + channel(sun, shift) * glow
                    raw.append(UInt8(max(0, min(255, lit * (1 - hill)))))
                }
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 2, 0, 0, 0])
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
        return png
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var crc = CRC32()
        crc.update(Array(type.utf8) + data)
        return be32(UInt32(data.count)) + Array(type.utf8) + data + be32(crc.value)
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let last: UInt8 = offset + length == data.count ? 1 : 0
            out += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + be32(b << 16 | a)
    }
}

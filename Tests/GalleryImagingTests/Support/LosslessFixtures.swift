import GalleryCrypto
import Foundation
@testable import GalleryImaging

/// The zlib, PNG and GIF fixture files (Fixtures/Zlib, Fixtures/PNG, Fixtures/GIF, each made by the
/// Python script beside them), read from the source tree rather than bundled.
enum LosslessFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The bytes of `Fixtures/<folder>/<name>`.
    static func data(_ folder: String, _ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(folder).appendingPathComponent(name))
    }

    /// The names in `Fixtures/<folder>` ending in `.<suffix>`, sorted.
    static func names(_ folder: String, suffix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path)
            .filter { $0.hasSuffix("." + suffix) }.sorted()
    }

    /// Bytes from a hex string ("63 0 3 0"): space-separated, one or two digits each.
    static func hex(_ text: String) -> [UInt8] {
        text.split(separator: " ").map { UInt8($0, radix: 16)! }
    }
}

/// Writes an LSB-first DEFLATE bit stream, to make hostile streams that no compressor would.
struct DeflateBitWriter {
    private(set) var bytes: [UInt8] = []
    private var accumulator: UInt64 = 0
    private var count = 0

    /// Appends the low `n` bits of `value`, lowest first (header fields, extra bits).
    mutating func write(_ value: Int, bits n: Int) {
        accumulator |= UInt64(value & ((1 << n) - 1)) << UInt64(count)
        count += n
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator >>= 8
            count -= 8
        }
    }

    /// Appends a Huffman code of `n` bits, most significant bit first (as RFC 1951 packs codes).
    mutating func writeCode(_ code: Int, bits n: Int) {
        for shift in stride(from: n - 1, through: 0, by: -1) { write(code >> shift & 1, bits: 1) }
    }

    /// The bytes, the last one padded with zero bits.
    mutating func finish() -> [UInt8] {
        if count > 0 { write(0, bits: 8 - count) }
        return bytes
    }

    /// A raw DEFLATE stream: one fixed-Huffman block of a zero literal then `matches` copies of 258
    /// bytes at distance 1: about 13 bits for every 258 bytes out, a decompression bomb.
    static func bomb(matches: Int) -> [UInt8] {
        var writer = DeflateBitWriter()
        writer.write(1, bits: 1)          // final
        writer.write(1, bits: 2)          // fixed Huffman
        writer.writeCode(0x30, bits: 8)   // literal 0
        for _ in 0..<matches {
            writer.writeCode(0xC5, bits: 8)   // length symbol 285: 258
            writer.writeCode(0, bits: 5)      // distance symbol 0: 1
        }
        writer.writeCode(0, bits: 7)      // end of block
        return writer.finish()
    }

    /// `deflate` wrapped as a zlib stream with the right Adler-32 of `output`.
    static func zlib(_ deflate: [UInt8], adlerOf output: [UInt8]) -> [UInt8] {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in output {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let adler = b << 16 | a
        return [0x78, 0x9C] + deflate + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: adler >> UInt32($0)) }
    }
}

extension RasterImage {
    /// The pixels as RGBA (gray replicated, opaque alpha added), to compare with a browser's decode.
    var rgbaPixels: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(width * height * 4)
        for pixel in 0..<width * height {
            let base = pixel * channels
            switch channels {
            case 1: out += [pixels[base], pixels[base], pixels[base], 255]
            case 3: out += [pixels[base], pixels[base + 1], pixels[base + 2], 255]
            default: out += pixels[base..<base + 4]
            }
        }
        return out
    }
}

/// A PNG chunk with its length and CRC, for building hostile files in tests.
func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    let crc = body.withUnsafeBytes { CRC32.checksum(of: $0) }
    return bigEndian(UInt32(data.count)) + body + bigEndian(crc)
}

func bigEndian(_ value: UInt32) -> [UInt8] {
    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) }
}

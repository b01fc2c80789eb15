import Foundation
import Testing
@testable import GalleryImaging

@Suite struct PNGDecoderTests {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func header(width: UInt32, height: UInt32, depth: UInt8 = 8, colorType: UInt8 = 6, interlace: UInt8 = 0) -> [UInt8] {
        pngChunk("IHDR", bigEndian(width) + bigEndian(height) + [depth, colorType, 0, 0, interlace])
    }

    static func error(_ bytes: [UInt8], limits: ImageLimits = .standard) -> ImageError? {
        do { _ = try PNGDecoder.decode(Data(bytes), limits: limits); return nil } catch { return error }
    }

    @Test func outputChannelsFollowTheColorTypeAndTransparency() throws {
        let expected = ["gray8.png": 1, "gray16-trns.png": 4, "rgb8.png": 3, "rgb16-trns.png": 4, "palette4.png": 3,
                        "palette4-trns.png": 4, "grayalpha8.png": 4, "rgba16-i.png": 4]
        for (name, channels) in expected {
            let image = try PNGDecoder.decode(try LosslessFixtures.data("PNG", name), limits: .standard)
            #expect(image.channels == channels, "\(name)")
        }
    }

    @Test func sixteenBitKeepsTheHighByteAndKeysCompareAtFullDepth() throws {
        // gray16-trns.png: pixel (1,1) differs from the key only in its low byte and stays opaque.
        let image = try PNGDecoder.decode(try LosslessFixtures.data("PNG", "gray16-trns.png"), limits: .standard)
        let key = (1 << 16) - 2
        #expect(Array(image.pixels[0..<4]) == [UInt8(key >> 8), UInt8(key >> 8), UInt8(key >> 8), 0])
        let pixel = (1 * image.width + 1) * 4
        #expect(image.pixels[pixel + 3] == 255)
    }

    @Test func interlacedAndPlainDecodeTheSame() throws {
        for (plain, interlaced) in [("rgb8-gradient.png", "rgb8-gradient-i.png"), ("gray16-trns.png", "gray16-trns-i.png"),
                                    ("palette2-trns.png", "palette2-trns-i.png"), ("rgb16-trns.png", "rgb16-trns-i.png")] {
            let a = try PNGDecoder.decode(try LosslessFixtures.data("PNG", plain), limits: .standard)
            let b = try PNGDecoder.decode(try LosslessFixtures.data("PNG", interlaced), limits: .standard)
            #expect(a == b, "\(plain) vs \(interlaced)")
        }
    }

    @Test func dimensionsReadsOnlyTheHeader() throws {
        let data = try LosslessFixtures.data("PNG", "rgb8-gradient.png")
        #expect(try PNGDecoder.dimensions(of: data) == (120, 90))
        #expect(try PNGDecoder.dimensions(of: data.prefix(33)) == (120, 90))
        #expect(throws: ImageError.unrecognizedFormat) { _ = try PNGDecoder.dimensions(of: Data("GIF89a".utf8)) }
        let huge = Data(Self.signature + Self.header(width: 65535, height: 65535))
        #expect(try PNGDecoder.dimensions(of: huge) == (65535, 65535))
    }

    @Test func hostileHeadersFailBeforeAllocating() {
        // 65535 x 65535 RGBA would be 16 GiB: refused from the header alone.
        let huge = Self.signature + Self.header(width: 65535, height: 65535) + pngChunk("IDAT", [0x78, 0x9C, 3, 0]) + pngChunk("IEND", [])
        guard case .tooLarge = Self.error(huge) else { Issue.record("65535x65535 not refused as too large"); return }
        // Within the pixel bound but over the working-memory bound.
        let wide = Self.signature + Self.header(width: 8000, height: 8000) + pngChunk("IDAT", [0x78, 0x9C, 3, 0]) + pngChunk("IEND", [])
        guard case .tooLarge = Self.error(wide) else { Issue.record("8000x8000 RGBA not refused"); return }
        let zero = Self.signature + Self.header(width: 0, height: 10) + pngChunk("IEND", [])
        #expect(Self.error(zero) == .malformed("PNG size 0x10"))
        let badDepth = Self.signature + Self.header(width: 1, height: 1, depth: 4, colorType: 2) + pngChunk("IEND", [])
        #expect(Self.error(badDepth) != nil)
        #expect(Self.error(Array("GIF89a........".utf8)) == .unrecognizedFormat)
        #expect(Self.error([]) == .unrecognizedFormat)
        #expect(Self.error(Self.signature) == .truncated("no IHDR chunk"))
    }

    @Test func aZlibBombInIDATStopsAtTheDeclaredSize() {
        // 16x16 gray declares 16 * 17 = 272 bytes; the stream inflates to 2.6 MB.
        let bomb = DeflateBitWriter.bomb(matches: 10_000)
        let stream = DeflateBitWriter.zlib(bomb, adlerOf: [UInt8](repeating: 0, count: 1 + 10_000 * 258))
        let file = Self.signature + Self.header(width: 16, height: 16, depth: 8, colorType: 0) + pngChunk("IDAT", stream) + pngChunk("IEND", [])
        guard case .malformed = Self.error(file) else { Issue.record("bomb not refused: \(String(describing: Self.error(file)))"); return }
    }

    @Test func damageIsAnErrorNeverATrap() throws {
        let good = [UInt8](try LosslessFixtures.data("PNG", "rgba8-level6-idats.png"))
        // Bad CRC on IHDR (byte 29 is IHDR's CRC), and on the last IDAT (just before IEND's 12 bytes).
        var badCRC = good
        badCRC[29] ^= 0xFF
        guard case .malformed = Self.error(badCRC) else { Issue.record("bad IHDR CRC accepted"); return }
        var badDataCRC = good
        badDataCRC[good.count - 13] ^= 1
        guard case .malformed = Self.error(badDataCRC) else { Issue.record("bad IDAT CRC accepted"); return }
        // Every truncation before IEND fails; cutting IEND alone is accepted, as browsers do.
        for cut in stride(from: 0, to: good.count - 12, by: 7) {
            #expect(Self.error(Array(good[..<cut])) != nil, "cut at \(cut)")
        }
        #expect(Self.error(Array(good[..<(good.count - 12)])) == nil)
        // A filter type of 5: the first row's filter byte is the first inflated byte; rebuild the file.
        let raw = [5] + [UInt8](repeating: 0, count: 4)
        let stored: [UInt8] = [1, UInt8(raw.count), 0, ~UInt8(raw.count), 0xFF] + raw
        let file = Self.signature + Self.header(width: 1, height: 1) + pngChunk("IDAT", DeflateBitWriter.zlib(stored, adlerOf: raw))
            + pngChunk("IEND", [])
        #expect(Self.error(file) == .malformed("PNG filter type 5 in scanline 0"))
        // Bad Huffman tables inside IDAT (zlib's "invalid code lengths set").
        let badTables = LosslessFixtures.hex("4 0 fe ff")
        let tablesFile = Self.signature + Self.header(width: 1, height: 1) + pngChunk("IDAT", [0x78, 0x9C] + badTables + [0, 0, 0, 1])
            + pngChunk("IEND", [])
        guard case .malformed = Self.error(tablesFile) else { Issue.record("bad Huffman tables accepted"); return }
        // A palette image without PLTE, and an unknown critical chunk.
        let noPalette = Self.signature + Self.header(width: 1, height: 1, colorType: 3) + pngChunk("IDAT", [0x78, 0x9C, 3, 0]) + pngChunk("IEND", [])
        #expect(Self.error(noPalette) == .malformed("a palette image without PLTE"))
        let critical = Self.signature + Self.header(width: 1, height: 1) + pngChunk("ABCD", []) + pngChunk("IEND", [])
        #expect(Self.error(critical) == .unsupported("the critical chunk ABCD"))
    }
}

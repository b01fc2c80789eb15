import Foundation
@testable import GalleryNode
import GallerySimulation
import Testing

/// Media type and size from PNG, GIF and JPEG headers.
@Suite("Image headers")
struct ImageHeaderTests {
    static func png(width: UInt32, height: UInt32) -> [UInt8] {
        func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be(13) + Array("IHDR".utf8) + be(width) + be(height)
            + [8, 2, 0, 0, 0] + [0, 0, 0, 0]
    }

    static func jpeg(width: UInt16, height: UInt16) -> [UInt8] {
        let app0: [UInt8] = [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]
        let sof0: [UInt8] = [0xFF, 0xC0, 0x00, 0x11, 8, UInt8(height >> 8), UInt8(height & 0xFF),
                             UInt8(width >> 8), UInt8(width & 0xFF), 3] + Array(repeating: 1, count: 9)
        return [0xFF, 0xD8] + app0 + [0xFF, 0xC4, 0x00, 0x04, 0, 0] + sof0 + [0xFF, 0xD9]
    }

    @Test("PNG, GIF and JPEG headers give their type and aspect ratio")
    func formats() {
        #expect(ImageHeader(Self.png(width: 640, height: 480)) == ImageHeader(mediaType: "image/png", width: 640, height: 480))
        let gif = Array("GIF89a".utf8) + [0x20, 0x03, 0x58, 0x02] + [0, 0, 0]
        #expect(ImageHeader(gif).map { ($0.mediaType, $0.width, $0.height) } ?? ("", 0, 0) == ("image/gif", 800, 600))
        let jpeg = ImageHeader(Self.jpeg(width: 1920, height: 1080))
        #expect(jpeg?.mediaType == "image/jpeg" && jpeg?.width == 1920 && jpeg?.height == 1080)
        #expect(abs((jpeg?.aspectRatio ?? 0) - 16.0 / 9.0) < 1e-9)
    }

    /// A JPEG stored 48x32 whose EXIF orientation 5-8 turns it: its sides as shown are swapped,
    /// so an item's aspect ratio (grid, placeholders, `list --json`) is the picture's as seen.
    @Test("A JPEG's EXIF orientation gives the size as shown", arguments: 1...8)
    func exifOrientation(orientation: Int) throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../GalleryImagingTests/Fixtures/orientation-\(orientation).jpg").standardized
        let bytes = try #require(FileManager.default.contents(atPath: fixture.path))
        let header = try #require(ImageHeader([UInt8](bytes)))
        #expect(header.mediaType == "image/jpeg")
        let turned = orientation >= 5
        #expect(header.width == (turned ? 32 : 48) && header.height == (turned ? 48 : 32), "\(header)")
    }

    @Test("Other bytes, truncated headers and zero sizes give nil, never a crash", arguments: [
        [], Array("hello world".utf8), Array(png(width: 640, height: 480).prefix(20)), png(width: 0, height: 10),
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00], [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 8, 0],
        Array(jpeg(width: 10, height: 10).prefix(25)),
    ] as [[UInt8]])
    func rejects(bytes: [UInt8]) {
        #expect(ImageHeader(bytes) == nil)
    }

    @Test("Seeded random bytes after a valid signature never crash")
    func randomBytes() {
        var generator = SeededGenerator(seed: 0x1AA6E)
        for _ in 0..<2_000 {
            let prefix: [UInt8] = [[0xFF, 0xD8], Array("GIF89a".utf8), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]]
                .randomElement(using: &generator)!
            let tail = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = ImageHeader(prefix + tail)
        }
    }
}

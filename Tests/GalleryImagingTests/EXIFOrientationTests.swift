import Foundation
import Testing
@testable import GalleryImaging

@Suite struct EXIFOrientationTests {
    /// The fixtures are one 48x32 picture (red, green / blue, white quadrants) tagged 1-8 by
    /// exiftool, odd values big-endian, even little-endian.
    @Test(arguments: 1...8)
    func readsTheTagInEitherByteOrder(value: Int) throws {
        let data = try ImageFixtures.data("orientation-\(value).jpg")
        #expect(EXIFReader.orientation(ofJPEG: data).rawValue == value)
        let size = try ImageProbe.dimensions(of: data)
        #expect(value >= 5 ? (size.width == 32 && size.height == 48) : (size.width == 48 && size.height == 32))
    }

    /// Each orientation brings the stored picture upright: for every tag, the displayed corner
    /// colors are those exiftool's tag promises of the stored quadrants.
    @Test(arguments: 1...8)
    func orientingPutsTheQuadrantsWhereTheTagSays(value: Int) throws {
        let data = try ImageFixtures.data("orientation-\(value).jpg")
        let stored = try JPEGDecoder.decode(data)
        let shown = stored.oriented(ImageOrientation(rawValue: value)!)
        func corner(_ image: RasterImage, _ right: Bool, _ bottom: Bool) -> String {
            let x = right ? image.width - 4 : 3, y = bottom ? image.height - 4 : 3
            let p = Array(image.pixels[((y * image.width + x) * 3)..<((y * image.width + x) * 3 + 3)])
            return String(p.map { $0 > 128 ? "1" : "0" })
        }
        // Stored: top-left red (100), top-right green (010), bottom-left blue (001), bottom-right white (111).
        let expected: [Int: [String]] = [ // displayed top-left, top-right, bottom-left, bottom-right
            1: ["100", "010", "001", "111"], 2: ["010", "100", "111", "001"],
            3: ["111", "001", "010", "100"], 4: ["001", "111", "100", "010"],
            5: ["100", "001", "010", "111"], 6: ["001", "100", "111", "010"],
            7: ["111", "010", "001", "100"], 8: ["010", "111", "100", "001"],
        ]
        let got = [corner(shown, false, false), corner(shown, true, false), corner(shown, false, true), corner(shown, true, true)]
        #expect(got == expected[value])
    }

    @Test func hostileTIFFReadsAsUpright() {
        let cases: [[UInt8]] = [
            [], [0x49, 0x49], [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0xFF, 0x7F],
            [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0xFF, 0xFF], // 65535 entries, none present
            [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 9, 0, 0], // value 9
            [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0], // entry cut short
        ]
        for bytes in cases { #expect(EXIFReader.orientation(ofTIFF: Data(bytes)) == .up) }
        let good: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
        #expect(EXIFReader.orientation(ofTIFF: Data(good)) == .right)
    }
}

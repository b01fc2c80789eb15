import Foundation
import Testing
@testable import GalleryImaging

@Suite struct GIFDecoderTests {
    static func error(_ bytes: [UInt8], limits: ImageLimits = .standard) -> ImageError? {
        do { _ = try GIFDecoder.decodeFirstFrame(Data(bytes), limits: limits); return nil } catch { return error }
    }

    /// A 2x1 GIF with a 2-color global table (red, blue): LZW minimum size 2, codes clear, 0, 1, end
    /// at 3 bits. Offsets: screen size 6-9, table 13-18, image descriptor 19, frame size 24-27, code
    /// size 29, data 31-32.
    static let tiny: [UInt8] = Array("GIF89a".utf8) + [2, 0, 1, 0, 0x80, 0, 0, 255, 0, 0, 0, 0, 255]
        + [0x2C, 0, 0, 0, 0, 2, 0, 1, 0, 0] + [2, 2, 0x44, 0x0A, 0] + [0x3B]

    @Test func decodesAHandMadeFile() throws {
        let image = try GIFDecoder.decodeFirstFrame(Data(Self.tiny), limits: .standard)
        #expect(image.channels == 4)
        #expect(image.pixels == [255, 0, 0, 255, 0, 0, 255, 255])
        #expect(try GIFDecoder.dimensions(of: Data(Self.tiny)) == (2, 1))
    }

    @Test func interlacedRowsComeInTheFourPasses() {
        #expect(GIFDecoder.interlacedRowOrder(19) == [0, 8, 16, 4, 12, 2, 6, 10, 14, 18, 1, 3, 5, 7, 9, 11, 13, 15, 17])
        #expect(GIFDecoder.interlacedRowOrder(1) == [0])
    }

    @Test func onlyTheFirstFrameCounts() throws {
        let image = try GIFDecoder.decodeFirstFrame(try LosslessFixtures.data("GIF", "animated.gif"), limits: .standard)
        #expect(image.width == 10 && image.height == 10)
        #expect(stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 })
    }

    @Test func hostileFilesAreErrors() throws {
        #expect(Self.error([]) == .unrecognizedFormat)
        #expect(Self.error(Array("GIF90a".utf8)) == .unrecognizedFormat)
        #expect(Self.error(Array("\u{89}PNG\r\n".utf8)) == .unrecognizedFormat)
        // Every truncation fails.
        for cut in 0..<Self.tiny.count - 1 {
            #expect(Self.error(Array(Self.tiny[..<cut])) != nil, "cut at \(cut)")
        }
        // 65535 x 65535 declared: refused before anything is allocated.
        var huge = Self.tiny
        huge[6] = 0xFF; huge[7] = 0xFF; huge[8] = 0xFF; huge[9] = 0xFF
        guard case .tooLarge = Self.error(huge) else { Issue.record("65535x65535 accepted"); return }
        var hugeFrame = Self.tiny
        hugeFrame[24...27] = [0xFF, 0xFF, 0xFF, 0xFF]  // the frame's own width and height
        guard case .tooLarge = Self.error(hugeFrame) else { Issue.record("65535x65535 frame accepted"); return }
        // A zero-size screen and frame.
        var zero = Self.tiny
        zero[6...9] = [0, 0, 0, 0]
        zero[24...27] = [0, 0, 0, 0]
        #expect(Self.error(zero) == .malformed("GIF canvas of 0x0"))
        // A code past the table: clear (4), then 7 with only 6 defined.
        var badCode = Self.tiny
        badCode[31...32] = [0x3C, 0x00]
        #expect(Self.error(badCode) != nil)
        // No image before the trailer; an unknown block.
        let header = Array(Self.tiny[0..<19])
        #expect(Self.error(header + [0x3B]) == .malformed("GIF has no image before its trailer"))
        #expect(Self.error(header + [0x99]) == .malformed("GIF block introducer 0x99"))
        // An LZW minimum code size of 12.
        var wide = Self.tiny
        wide[29] = 12
        #expect(Self.error(wide) == .malformed("GIF LZW minimum code size 12"))
    }

    @Test func pixelLimitsAreChecked() throws {
        let data = try LosslessFixtures.data("GIF", "large-noise.gif")
        let tight = ImageLimits(maxDecodedPixels: 100, maxWorkingBytes: 1 << 20)
        #expect(throws: ImageError.self) { _ = try GIFDecoder.decodeFirstFrame(data, limits: tight) }
    }
}

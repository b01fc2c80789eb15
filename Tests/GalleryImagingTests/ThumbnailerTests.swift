import Foundation
import Testing
@testable import GalleryImaging

@Suite struct ThumbnailerTests {
    @Test func detectsFormatsByMagic() {
        #expect(ImageFormat.detect(Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
        #expect(ImageFormat.detect(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])) == .png)
        #expect(ImageFormat.detect(Data("GIF89a...".utf8)) == .gif)
        #expect(ImageFormat.detect(Data("GIF87a".utf8)) == .gif)
        #expect(ImageFormat.detect(Data("hello".utf8)) == nil)
        #expect(ImageFormat.detect(Data()) == nil)
    }

    @Test func picksTheSmallestScaleThatStillCoversTheTarget() {
        #expect(Thumbnailer.scaleDenominator(width: 6000, height: 4000, longEdge: 320) == 8)
        #expect(Thumbnailer.scaleDenominator(width: 6000, height: 4000, longEdge: 1280) == 4)
        #expect(Thumbnailer.scaleDenominator(width: 6000, height: 4000, longEdge: 2000) == 2)
        #expect(Thumbnailer.scaleDenominator(width: 263, height: 197, longEdge: 320) == 1)
        #expect(Thumbnailer.scaleDenominator(width: 2561, height: 100, longEdge: 320) == 8)
        #expect(Thumbnailer.scaleDenominator(width: 2552, height: 100, longEdge: 320) == 4)
    }

    @Test func thumbnailsAJPEGToTheLongEdge() throws {
        let thumbnail = try Thumbnailer.thumbnail(of: try ImageFixtures.data("progressive-420.jpg"), longEdge: 100)
        #expect(thumbnail.width == 100 && thumbnail.height == 75)
        #expect(thumbnail.sourceWidth == 263 && thumbnail.sourceHeight == 197)
        let decoded = try JPEGDecoder.decode(thumbnail.jpeg)
        #expect(decoded.width == 100 && decoded.height == 75)
        // Close to the source reduced by Lanczos directly: the scaled decode and the encode cost little.
        let source = ImageFixtures.netpbm(try ImageFixtures.data("source.ppm"))!
        let psnr = ImageFixtures.psnr(decoded, ImageResampler.resize(source, width: 100, height: 75))
        print("PSNR thumbnail 100px vs Lanczos of source: \(psnr)")
        #expect(psnr >= 27)
    }

    @Test func neverUpscales() throws {
        let thumbnail = try Thumbnailer.thumbnail(of: try ImageFixtures.data("gray.jpg"), longEdge: 1000)
        #expect(thumbnail.width == 263 && thumbnail.height == 197)
    }

    @Test(arguments: 1...8)
    func thumbnailsAreUpright(value: Int) throws {
        let thumbnail = try Thumbnailer.thumbnail(of: try ImageFixtures.data("orientation-\(value).jpg"), longEdge: 24)
        let expected = value >= 5 ? (16, 24) : (24, 16)
        #expect(thumbnail.width == expected.0 && thumbnail.height == expected.1)
        #expect(thumbnail.sourceWidth == (value >= 5 ? 32 : 48) && thumbnail.sourceHeight == (value >= 5 ? 48 : 32))
        let decoded = try JPEGDecoder.decode(thumbnail.jpeg)
        #expect(decoded.width == expected.0)
    }

    @Test func refusesWhatItCannotRead() {
        #expect(throws: ImageError.unrecognizedFormat) { try Thumbnailer.thumbnail(of: Data("not an image".utf8), longEdge: 64) }
        #expect(throws: ImageError.self) { try Thumbnailer.thumbnail(of: Data([0xFF, 0xD8, 0xFF]), longEdge: 64) }
    }

    @Test func probesPNGAndGIFHeaders() throws {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        png += Array("IHDR".utf8) + [0, 0, 2, 0, 0, 0, 1, 0x2C, 8, 6, 0, 0, 0]
        #expect(try ImageProbe.dimensions(of: Data(png)) == (512, 300))
        let gif: [UInt8] = Array("GIF89a".utf8) + [0x40, 0x01, 0xF0, 0x00, 0, 0, 0]
        #expect(try ImageProbe.dimensions(of: Data(gif)) == (320, 240))
        #expect(throws: ImageError.self) { try ImageProbe.dimensions(of: Data(Array("GIF89a".utf8))) }
    }
}

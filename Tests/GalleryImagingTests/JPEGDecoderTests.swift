import Foundation
import Testing
@testable import GalleryImaging

@Suite struct JPEGDecoderTests {
    static let source = ImageFixtures.netpbm(try! ImageFixtures.data("source.ppm"))!

    @Test(arguments: ImageFixtures.colorJPEGs + ImageFixtures.grayJPEGs)
    func fullScaleMatchesLibjpegAndTheSource(name: String) throws {
        let image = try JPEGDecoder.decode(try ImageFixtures.data(name))
        #expect(image.width == 263 && image.height == 197)
        let gray = name.hasPrefix("gray")
        #expect(image.channels == (gray ? 1 : 3))
        let versusSource = ImageFixtures.psnr(image, gray ? ImageFixtures.gray(Self.source) : Self.source)
        print("PSNR \(name) 1/1 vs source: \(versusSource)")
        #expect(versusSource >= 30)
        if ImageFixtures.hasDjpeg, let reference = try ImageFixtures.djpeg(name) {
            let versusLibjpeg = ImageFixtures.psnr(image, reference)
            print("PSNR \(name) 1/1 vs djpeg: \(versusLibjpeg)")
            #expect(versusLibjpeg >= 45)
        }
    }

    @Test(arguments: ImageFixtures.colorJPEGs + ImageFixtures.grayJPEGs, [2, 4, 8])
    func scaledDecodesMatchLibjpegAndAnAreaAverage(name: String, scale: Int) throws {
        let image = try JPEGDecoder.decode(try ImageFixtures.data(name), scaleDenominator: scale)
        #expect(image.width == (263 + scale - 1) / scale && image.height == (197 + scale - 1) / scale)
        let gray = name.hasPrefix("gray")
        let reduced = ImageFixtures.boxReduce(gray ? ImageFixtures.gray(Self.source) : Self.source, by: scale)
        let versusAverage = ImageFixtures.psnr(image, reduced)
        print("PSNR \(name) 1/\(scale) vs area average: \(versusAverage)")
        #expect(versusAverage >= 24)
        if ImageFixtures.hasDjpeg, let reference = try ImageFixtures.djpeg(name, scale: scale) {
            let versusLibjpeg = ImageFixtures.psnr(image, reference)
            print("PSNR \(name) 1/\(scale) vs djpeg: \(versusLibjpeg)")
            #expect(versusLibjpeg >= 40)
        }
    }
}

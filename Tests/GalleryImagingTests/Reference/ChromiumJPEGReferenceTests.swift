import Foundation
import GalleryTestSupport
import Testing
@testable import GalleryImaging

/// Our JPEG decodes against Chromium's, pixel for pixel (PSNR), EXIF orientation applied on both sides.
@Suite("JPEG vs Chromium", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct ChromiumJPEGReferenceTests {
    static func rgb(_ image: ChromiumImageReference.Image) -> RasterImage {
        var pixels = [UInt8](repeating: 0, count: image.width * image.height * 3)
        for i in 0..<(image.width * image.height) {
            pixels[3 * i] = image.rgba[4 * i]; pixels[3 * i + 1] = image.rgba[4 * i + 1]; pixels[3 * i + 2] = image.rgba[4 * i + 2]
        }
        return RasterImage(width: image.width, height: image.height, channels: 3, pixels: pixels)
    }

    /// Ours as RGB, turned upright: Chromium always applies the orientation.
    static func ours(_ data: Data) throws -> RasterImage {
        let image = try JPEGDecoder.decode(data).oriented(EXIFReader.orientation(ofJPEG: data))
        guard image.channels == 1 else { return image }
        return RasterImage(width: image.width, height: image.height, channels: 3, pixels: image.pixels.flatMap { [$0, $0, $0] })
    }

    @Test func fixturesMatchChromiumAtFullScale() throws {
        let reference = try ChromiumImageReference.launch()
        defer { reference.close() }
        let names = ImageFixtures.colorJPEGs + ImageFixtures.grayJPEGs + (1...8).map { "orientation-\($0).jpg" }
        for name in names {
            let data = try ImageFixtures.data(name)
            let expected = Self.rgb(try reference.decode(data))
            let ours = try Self.ours(data)
            guard ours.width == expected.width, ours.height == expected.height else {
                Issue.record("\(name): ours \(ours.width)x\(ours.height), Chromium \(expected.width)x\(expected.height)")
                continue
            }
            let psnr = ImageFixtures.psnr(ours, expected)
            print("PSNR \(name) vs Chromium: \(psnr)")
            #expect(psnr >= 35, "\(name)")
        }
    }

    @Test func encodedThumbnailsDecodeInChromium() throws {
        let reference = try ChromiumImageReference.launch()
        defer { reference.close() }
        let thumbnail = try Thumbnailer.thumbnail(of: try ImageFixtures.data("orientation-6.jpg"), longEdge: 24)
        let expected = Self.rgb(try reference.decode(thumbnail.jpeg))
        let ours = try JPEGDecoder.decode(thumbnail.jpeg)
        #expect(expected.width == 16 && expected.height == 24)
        #expect(ImageFixtures.psnr(ours, expected) >= 35)
    }
}

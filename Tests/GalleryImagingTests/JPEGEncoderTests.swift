import Foundation
import Testing
@testable import GalleryImaging

@Suite struct JPEGEncoderTests {
    static let source = ImageFixtures.netpbm(try! ImageFixtures.data("source.ppm"))!

    @Test(arguments: [50, 82, 95])
    func roundTripsThroughOurDecoder(quality: Int) throws {
        let data = JPEGEncoder.encode(Self.source, quality: quality)
        let decoded = try JPEGDecoder.decode(data)
        #expect(decoded.width == Self.source.width && decoded.height == Self.source.height)
        let psnr = ImageFixtures.psnr(decoded, Self.source)
        print("PSNR encode q\(quality) -> decode vs source: \(psnr), \(data.count) bytes")
        #expect(psnr >= (quality >= 82 ? 30 : 27))
    }

    @Test func libjpegReadsWhatWeWrite() throws {
        guard ImageFixtures.hasDjpeg else { return }
        let data = JPEGEncoder.encode(Self.source, quality: 90)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-encoder-\(getpid()).jpg")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ImageFixtures.djpegPath)
        process.arguments = ["-pnm", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let reference = try #require(ImageFixtures.netpbm(output))
        let ours = try JPEGDecoder.decode(data)
        #expect(ImageFixtures.psnr(ours, reference) >= 45)
    }

    @Test func grayAndAlphaImagesEncode() throws {
        let gray = RasterImage(width: 17, height: 9, channels: 1, pixels: (0..<153).map { UInt8($0) })
        let decodedGray = try JPEGDecoder.decode(JPEGEncoder.encode(gray))
        #expect(decodedGray.channels == 1 && decodedGray.width == 17 && decodedGray.height == 9)
        // Fully transparent pixels come out white: alpha is composited over white.
        let clear = RasterImage(width: 5, height: 3, channels: 4, pixels: [UInt8](repeating: 0, count: 60))
        let decodedClear = try JPEGDecoder.decode(JPEGEncoder.encode(clear))
        #expect(decodedClear.pixels.allSatisfy { $0 >= 250 })
        let one = RasterImage(width: 1, height: 1, channels: 3, pixels: [200, 10, 30])
        #expect(try JPEGDecoder.decode(JPEGEncoder.encode(one)).width == 1)
    }

    @Test func encodesA1280PixelImageInMilliseconds() throws {
        let big = ImageResampler.resize(Self.source, width: 1280, height: 959)
        let clock = ContinuousClock()
        var data = Data()
        let elapsed = clock.measure { data = JPEGEncoder.encode(big, quality: 82) }
        print("encode 1280x959: \(elapsed), \(data.count) bytes")
        #expect(try JPEGDecoder.decode(data).width == 1280)
    }
}

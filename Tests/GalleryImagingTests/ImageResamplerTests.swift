import Foundation
import Testing
@testable import GalleryImaging

@Suite struct ImageResamplerTests {
    @Test func fittedSizeKeepsTheAspectAndNeverEnlarges() {
        #expect(ImageResampler.fittedSize(width: 6000, height: 4000, longEdge: 320) == (320, 213))
        #expect(ImageResampler.fittedSize(width: 4000, height: 6000, longEdge: 320) == (213, 320))
        #expect(ImageResampler.fittedSize(width: 100, height: 50, longEdge: 320) == (100, 50))
        #expect(ImageResampler.fittedSize(width: 10000, height: 1, longEdge: 100) == (100, 1))
    }

    @Test func flatImagesStayExactlyFlat() {
        let flat = RasterImage(width: 97, height: 61, channels: 3, pixels: [UInt8](repeating: 0, count: 97 * 61 * 3).enumerated().map { [UInt8(77), 140, 201][$0.offset % 3] })
        let small = ImageResampler.resize(flat, width: 13, height: 9)
        #expect(small.pixels.enumerated().allSatisfy { $0.element == [UInt8(77), 140, 201][$0.offset % 3] })
    }

    @Test func shrinkingIsCloseToAnAreaAverage() throws {
        let source = ImageFixtures.netpbm(try ImageFixtures.data("source.ppm"))!
        // 263x197 to a quarter: compare with the 4x4 area average (Lanczos is sharper, so not equal).
        let small = ImageResampler.resize(source, width: 66, height: 50)
        let reference = ImageFixtures.boxReduce(source, by: 4)
        let cropped = RasterImage(width: 66, height: 50, channels: 3, pixels: reference.pixels)
        let psnr = ImageFixtures.psnr(small, cropped)
        print("PSNR Lanczos-3 1/4 vs area average: \(psnr)")
        #expect(psnr >= 24)
    }
}

import Foundation
import GalleryImaging

/// Real pictures for the thumbnail tests: JPEGs of a seeded gradient, each with its own bytes.
enum PictureFiles {
    /// A baseline JPEG of `width` x `height` whose colors depend on `seed`.
    static func jpeg(width: Int, height: Int, seed: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let base = (y * width + x) * 3
                pixels[base] = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1) + seed * 37)
                pixels[base + 1] = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1) + seed * 11)
                pixels[base + 2] = UInt8(truncatingIfNeeded: (x ^ y) + seed)
            }
        }
        return Array(JPEGEncoder.encode(RasterImage(width: width, height: height, channels: 3, pixels: pixels), quality: 90))
    }

    /// The size of a JPEG's frame, or nil when it is not one this package decodes.
    static func size(ofJPEG bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard let image = try? JPEGDecoder.decode(Data(bytes), scaleDenominator: 1) else { return nil }
        return (image.width, image.height)
    }
}

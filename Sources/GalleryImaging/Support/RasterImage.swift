/// Decoded pixels, row-major and top-down with no padding: `channels` bytes a pixel (1 gray, 3 RGB,
/// 4 RGBA), 8 bits a sample. Every decoder produces one and every encoder and scaler takes one.
package struct RasterImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    package let channels: Int
    package var pixels: [UInt8]

    package init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && (1...4).contains(channels))
        precondition(pixels.count == width * height * channels)
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }
}

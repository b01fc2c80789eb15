/// Turning and mirroring a raster for display.
extension RasterImage {
    /// This image as displayed under `orientation`: mirrored and/or turned, width and height
    /// swapped for orientations 5-8.
    package func oriented(_ orientation: ImageOrientation) -> RasterImage {
        if orientation == .up { return self }
        let (outWidth, outHeight) = orientation.displayedSize(width: width, height: height)
        let w = width, h = height, n = channels
        let pixels = [UInt8](unsafeUninitializedCapacity: outWidth * outHeight * n) { out, initialized in
            self.pixels.withUnsafeBufferPointer { source in
                let src = source.baseAddress!, dst = out.baseAddress!
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // (sx, sy): the stored pixel shown at displayed (x, y).
                        let sx: Int, sy: Int
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (w - 1 - x, y)
                        case .down: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case .downMirrored: (sx, sy) = (x, h - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, h - 1 - x)
                        case .rightMirrored: (sx, sy) = (w - 1 - y, h - 1 - x)
                        case .left: (sx, sy) = (w - 1 - y, x)
                        }
                        let from = src + (sy * w + sx) * n, to = dst + (y * outWidth + x) * n
                        for c in 0..<n { to[c] = from[c] }
                    }
                }
            }
            initialized = outWidth * outHeight * n
        }
        return RasterImage(width: outWidth, height: outHeight, channels: n, pixels: pixels)
    }
}

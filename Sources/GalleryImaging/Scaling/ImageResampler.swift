import Foundation

/// Downscaling with a separable Lanczos-3 filter whose support widens with the shrink factor,
/// so every source pixel contributes (no aliasing, however large the reduction). Fixed-point
/// weights, one horizontal then one vertical pass, 8-bit intermediates (as libvips' reduce does).
package enum ImageResampler {
    /// Fraction bits of the fixed-point weights.
    static let weightBits = 14

    /// The size whose long edge is `longEdge` with the aspect ratio kept, never larger than the
    /// image itself.
    package static func fittedSize(width: Int, height: Int, longEdge: Int) -> (width: Int, height: Int) {
        let long = max(width, height)
        guard longEdge > 0, long > longEdge else { return (width, height) }
        let scale = Double(longEdge) / Double(long)
        let w = width >= height ? longEdge : max(1, Int((Double(width) * scale).rounded()))
        let h = height > width ? longEdge : max(1, Int((Double(height) * scale).rounded()))
        return (w, h)
    }

    /// `image` scaled so its long edge is `longEdge`; returned as is when it is already no larger.
    package static func fit(_ image: RasterImage, longEdge: Int) -> RasterImage {
        let size = fittedSize(width: image.width, height: image.height, longEdge: longEdge)
        if size.width == image.width && size.height == image.height { return image }
        return resize(image, width: size.width, height: size.height)
    }

    /// `image` resampled to `width` x `height` (each at least 1).
    package static func resize(_ image: RasterImage, width: Int, height: Int) -> RasterImage {
        precondition(width > 0 && height > 0)
        let n = image.channels
        // Horizontal first: the vertical pass then works on the narrower rows.
        let across = Contributions(inSize: image.width, outSize: width)
        let down = Contributions(inSize: image.height, outSize: height)
        var middle = [UInt8](repeating: 0, count: width * image.height * n)
        image.pixels.withUnsafeBufferPointer { source in
            middle.withUnsafeMutableBufferPointer { target in
                across.weights.withUnsafeBufferPointer { weights in
                    for y in 0..<image.height {
                        let src = source.baseAddress! + y * image.width * n
                        let dst = target.baseAddress! + y * width * n
                        for x in 0..<width {
                            let start = across.starts[x], taps = across.counts[x]
                            let w = weights.baseAddress! + x * across.stride
                            for c in 0..<n {
                                var sum: Int32 = 1 << (weightBits - 1)
                                var p = src + start * n + c
                                for t in 0..<taps {
                                    sum &+= Int32(p[0]) &* w[t]
                                    p += n
                                }
                                dst[x * n + c] = clamp(sum >> Int32(weightBits))
                            }
                        }
                    }
                }
            }
        }
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * n) { out, initialized in
            middle.withUnsafeBufferPointer { source in
                down.weights.withUnsafeBufferPointer { weights in
                    let rowLength = width * n
                    let sums = UnsafeMutablePointer<Int32>.allocate(capacity: rowLength)
                    defer { sums.deallocate() }
                    for y in 0..<height {
                        let start = down.starts[y], taps = down.counts[y]
                        let w = weights.baseAddress! + y * down.stride
                        sums.update(repeating: 1 << (Int32(weightBits) - 1), count: rowLength)
                        // Row by row so the inner loop runs along memory.
                        for t in 0..<taps {
                            let row = source.baseAddress! + (start + t) * rowLength, weight = w[t]
                            for i in 0..<rowLength { sums[i] &+= Int32(row[i]) &* weight }
                        }
                        let dst = out.baseAddress! + y * rowLength
                        for i in 0..<rowLength { dst[i] = clamp(sums[i] >> Int32(weightBits)) }
                    }
                }
            }
            initialized = width * height * n
        }
        return RasterImage(width: width, height: height, channels: n, pixels: pixels)
    }

    @inline(__always) static func clamp(_ value: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: value < 0 ? 0 : (value > 255 ? 255 : value))
    }

    static func lanczos3(_ x: Double) -> Double {
        let x = abs(x)
        if x < 1e-9 { return 1 }
        if x >= 3 { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    /// For each output sample along one axis: the first input sample, how many follow, and their
    /// fixed-point weights (summing to exactly 1 << weightBits).
    struct Contributions {
        var starts: [Int] = []
        var counts: [Int] = []
        var weights: [Int32] = []
        let stride: Int

        init(inSize: Int, outSize: Int) {
            let scale = Double(inSize) / Double(outSize)
            let filterScale = max(scale, 1)
            let support = 3 * filterScale
            stride = Int(ceil(support)) * 2 + 2
            weights = [Int32](repeating: 0, count: stride * outSize)
            for i in 0..<outSize {
                let center = (Double(i) + 0.5) * scale
                let first = max(0, Int(floor(center - support)))
                let last = min(inSize - 1, Int(ceil(center + support)))
                var raw: [Double] = []
                for j in first...last { raw.append(ImageResampler.lanczos3((Double(j) + 0.5 - center) / filterScale)) }
                // Trim zero weights at the ends so the taps fit the stride.
                var lo = 0, hi = raw.count - 1
                while lo < hi && raw[lo] == 0 { lo += 1 }
                while hi > lo && raw[hi] == 0 { hi -= 1 }
                if hi - lo + 1 > stride { hi = lo + stride - 1 }
                let kept = Array(raw[lo...hi])
                let total = kept.reduce(0, +)
                var fixed = kept.map { Int32(($0 / total * Double(1 << ImageResampler.weightBits)).rounded()) }
                // Rounding leftovers go to the largest tap so flat areas stay exactly flat.
                let error = Int32(1 << ImageResampler.weightBits) - fixed.reduce(0, +)
                if let biggest = fixed.indices.max(by: { fixed[$0] < fixed[$1] }) { fixed[biggest] += error }
                starts.append(first + lo)
                counts.append(fixed.count)
                for (t, w) in fixed.enumerated() { weights[i * stride + t] = w }
            }
        }
    }
}

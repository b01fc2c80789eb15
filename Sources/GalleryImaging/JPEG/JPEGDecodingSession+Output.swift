/// From planes to pixels: chroma upsampling (libjpeg's "fancy" triangle filter where libjpeg
/// uses it, replication elsewhere) and the YCbCr to RGB conversion of JFIF, in libjpeg's fixed point.
extension JPEGDecodingSession {
    mutating func makeImage() throws(ImageError) -> RasterImage {
        guard let frame else { throw .malformed("no frame header") }
        if frame.progressive {
            try inverseTransformCoefficients()
            coefficients = []
        }
        let (width, height) = frame.scaledSize(scaleDenominator)
        let count = frame.components.count
        let channels = count == 1 ? 1 : 3
        let ids = frame.components.map(\.id)
        // libjpeg's rule: Adobe's flag decides; without it, components named R, G, B are RGB.
        let isRGB = count == 3 && (adobeTransform.map { $0 == 0 } ?? (ids == [0x52, 0x47, 0x42]))
        if count == 3, let adobeTransform, adobeTransform > 1 { throw .unsupported("Adobe transform \(adobeTransform)") }
        let fancy = scaleDenominator < 8
        let planeStore = planes
        planes = []
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * channels) { output, initialized in
            planeStore.withUnsafeBufferPointer { planeBuffer in
                JPEGColor.tables.withUnsafeBufferPointer { tables in
                    let rowLength = width + 32
                    let rows = UnsafeMutablePointer<UInt8>.allocate(capacity: rowLength * count)
                    let sums = UnsafeMutablePointer<Int32>.allocate(capacity: rowLength)
                    defer {
                        rows.deallocate()
                        sums.deallocate()
                    }
                    var sources = [UnsafePointer<UInt8>](repeating: planeBuffer.baseAddress!, count: count)
                    for y in 0..<height {
                        for index in 0..<count {
                            let c = frame.components[index]
                            let plane = planeBuffer.baseAddress! + c.planeOffset
                            if c.upsampleX == 1 && c.upsampleY == 1 {
                                sources[index] = plane + y * c.planeStride
                            } else {
                                let row = rows + index * rowLength
                                Self.upsampleRow(c, plane: plane, y: y, fancy: fancy, into: row, sums: sums, width: width)
                                sources[index] = UnsafePointer(row)
                            }
                        }
                        let out = output.baseAddress! + y * width * channels
                        if count == 1 {
                            out.update(from: sources[0], count: width)
                        } else if isRGB {
                            let r = sources[0], g = sources[1], b = sources[2]
                            for x in 0..<width {
                                out[3 * x] = r[x]; out[3 * x + 1] = g[x]; out[3 * x + 2] = b[x]
                            }
                        } else {
                            JPEGColor.convertRow(sources[0], sources[1], sources[2], out, width, tables.baseAddress!)
                        }
                    }
                }
            }
            initialized = width * height * channels
        }
        return RasterImage(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// One output row of a subsampled component, upsampled to the output width.
    static func upsampleRow(
        _ c: JPEGComponent, plane: UnsafePointer<UInt8>, y: Int, fancy: Bool,
        into row: UnsafeMutablePointer<UInt8>, sums: UnsafeMutablePointer<Int32>, width: Int
    ) {
        let inWidth = c.scaledWidth, lastRow = max(c.scaledHeight - 1, 0)
        let sourceY = min(y / c.upsampleY, lastRow)
        let near = plane + sourceY * c.planeStride
        if fancy && c.upsampleY == 2 && (c.upsampleX == 1 || (c.upsampleX == 2 && inWidth > 2)) {
            // Vertical triangle: 3/4 of the nearer row, 1/4 of the other neighbour (h2v2, h1v2).
            let below = y & 1 == 1
            let farY = below ? min(sourceY + 1, lastRow) : max(sourceY - 1, 0)
            let far = plane + farY * c.planeStride
            for x in 0..<inWidth { sums[x] = Int32(near[x]) * 3 + Int32(far[x]) }
            if c.upsampleX == 1 {
                let bias: Int32 = below ? 2 : 1
                for x in 0..<min(width, inWidth) { row[x] = UInt8(truncatingIfNeeded: (sums[x] + bias) >> 2) }
                return
            }
            var this = sums[0], last = sums[0]
            row[0] = UInt8(truncatingIfNeeded: (this * 4 + 8) >> 4)
            row[1] = UInt8(truncatingIfNeeded: (this * 3 + sums[1] + 7) >> 4)
            for x in 1..<(inWidth - 1) {
                last = this
                this = sums[x]
                let next = sums[x + 1]
                row[2 * x] = UInt8(truncatingIfNeeded: (this * 3 + last + 8) >> 4)
                row[2 * x + 1] = UInt8(truncatingIfNeeded: (this * 3 + next + 7) >> 4)
            }
            last = sums[inWidth - 2]
            this = sums[inWidth - 1]
            row[2 * inWidth - 2] = UInt8(truncatingIfNeeded: (this * 3 + last + 8) >> 4)
            row[2 * inWidth - 1] = UInt8(truncatingIfNeeded: (this * 4 + 7) >> 4)
            return
        }
        if fancy && c.upsampleY == 1 && c.upsampleX == 2 && inWidth > 2 {
            // Horizontal triangle (h2v1).
            row[0] = near[0]
            row[1] = UInt8(truncatingIfNeeded: (Int32(near[0]) * 3 + Int32(near[1]) + 2) >> 2)
            for x in 1..<(inWidth - 1) {
                let value = Int32(near[x]) * 3
                row[2 * x] = UInt8(truncatingIfNeeded: (value + Int32(near[x - 1]) + 1) >> 2)
                row[2 * x + 1] = UInt8(truncatingIfNeeded: (value + Int32(near[x + 1]) + 2) >> 2)
            }
            let value = Int32(near[inWidth - 1]) * 3
            row[2 * inWidth - 2] = UInt8(truncatingIfNeeded: (value + Int32(near[inWidth - 2]) + 1) >> 2)
            row[2 * inWidth - 1] = near[inWidth - 1]
            return
        }
        // Replication: the 1/8 scale (libjpeg does no fancy upsampling there) and unusual factors.
        let factor = c.upsampleX
        for x in 0..<width { row[x] = near[min(x / factor, c.planeStride - 1)] }
    }
}

/// One component of a frame (SOF) and where its samples live at the chosen scale.
struct JPEGComponent: Sendable {
    let id: UInt8
    let horizontalSampling: Int
    let verticalSampling: Int
    let quantTable: Int
    /// Blocks of the plane, padded to whole MCUs (interleaved scans cover all of them).
    var blocksPerLine = 0
    var blocksPerColumn = 0
    /// Blocks that cover the component's own samples (a non-interleaved scan covers these).
    var widthInBlocks = 0
    var heightInBlocks = 0
    /// Output samples per block side at the chosen scale: 1, 2, 4 or 8.
    var blockSize = 8
    /// Samples of the plane holding real image data at this scale (the rest is MCU padding).
    var scaledWidth = 0
    var scaledHeight = 0
    /// How many output pixels one plane sample covers, across and down.
    var upsampleX = 1
    var upsampleY = 1
    /// Offsets of this component's plane and coefficients in the decoder's shared buffers.
    var planeOffset = 0
    var coefficientOffset = 0
    /// Coefficients kept per block (progressive): 64, or only the DC when the block is decoded 1x1.
    var coefficientsPerBlock = 64
    /// Huffman tables chosen by the current scan, and its DC predictor.
    var dcTable = 0
    var acTable = 0
    var dcPredictor: Int32 = 0

    init(id: UInt8, horizontalSampling: Int, verticalSampling: Int, quantTable: Int) {
        self.id = id
        self.horizontalSampling = horizontalSampling
        self.verticalSampling = verticalSampling
        self.quantTable = quantTable
    }

    var planeStride: Int { blocksPerLine * blockSize }
}

/// The frame header (SOF0/1/2) with the layout derived from it.
struct JPEGFrame: Sendable {
    let width: Int
    let height: Int
    let progressive: Bool
    var components: [JPEGComponent]
    let maxHorizontalSampling: Int
    let maxVerticalSampling: Int
    let mcusPerLine: Int
    let mcusPerColumn: Int

    /// Parses SOF's body, checking every field a later loop trusts.
    init(segment: UnsafeBufferPointer<UInt8>, progressive: Bool) throws(ImageError) {
        guard segment.count >= 6 else { throw .truncated("frame header") }
        guard segment[0] == 8 else { throw .unsupported("\(segment[0])-bit JPEG samples") }
        height = Int(segment[1]) << 8 | Int(segment[2])
        width = Int(segment[3]) << 8 | Int(segment[4])
        let count = Int(segment[5])
        guard width > 0 else { throw .malformed("zero image width") }
        guard height > 0 else { throw .unsupported("height defined by DNL") }
        guard count == 1 || count == 3 else {
            throw count == 4 ? .unsupported("CMYK JPEG") : .malformed("\(count) components")
        }
        guard segment.count >= 6 + 3 * count else { throw .truncated("frame header") }
        var components: [JPEGComponent] = []
        for index in 0..<count {
            let base = 6 + 3 * index
            let h = Int(segment[base + 1] >> 4), v = Int(segment[base + 1] & 15)
            let table = Int(segment[base + 2])
            guard (1...4).contains(h), (1...4).contains(v) else { throw .malformed("sampling factors") }
            guard table < 4 else { throw .malformed("quantization table index") }
            guard !components.contains(where: { $0.id == segment[base] }) else { throw .malformed("duplicate component") }
            components.append(JPEGComponent(id: segment[base], horizontalSampling: h, verticalSampling: v, quantTable: table))
        }
        if count == 1 {
            // A lone component is never interleaved: its own sampling factors do not matter (T.81 A.2.2).
            components[0] = JPEGComponent(id: components[0].id, horizontalSampling: 1, verticalSampling: 1, quantTable: components[0].quantTable)
        }
        self.progressive = progressive
        maxHorizontalSampling = components.map(\.horizontalSampling).max() ?? 1
        maxVerticalSampling = components.map(\.verticalSampling).max() ?? 1
        mcusPerLine = (width + 8 * maxHorizontalSampling - 1) / (8 * maxHorizontalSampling)
        mcusPerColumn = (height + 8 * maxVerticalSampling - 1) / (8 * maxVerticalSampling)
        for index in components.indices {
            var c = components[index]
            c.blocksPerLine = mcusPerLine * c.horizontalSampling
            c.blocksPerColumn = mcusPerColumn * c.verticalSampling
            let samplesWide = (width * c.horizontalSampling + maxHorizontalSampling - 1) / maxHorizontalSampling
            let samplesHigh = (height * c.verticalSampling + maxVerticalSampling - 1) / maxVerticalSampling
            c.widthInBlocks = (samplesWide + 7) / 8
            c.heightInBlocks = (samplesHigh + 7) / 8
            components[index] = c
        }
        self.components = components
    }

    /// Output size at 1/`denominator` (rounded up, as libjpeg does).
    func scaledSize(_ denominator: Int) -> (width: Int, height: Int) {
        ((width + denominator - 1) / denominator, (height + denominator - 1) / denominator)
    }

    /// Chooses each component's IDCT size for 1/`denominator`: as libjpeg-turbo does, a subsampled
    /// component gets a larger IDCT when that spares upsampling (4:2:0 chroma at 1/8 is decoded
    /// 2x2, so it comes out at the luma's size).
    mutating func applyScale(_ denominator: Int) throws(ImageError) {
        let lumaBlock = 8 / denominator
        for index in components.indices {
            var c = components[index]
            var size = lumaBlock
            while size < 8,
                  (maxHorizontalSampling * lumaBlock) % (c.horizontalSampling * size * 2) == 0,
                  (maxVerticalSampling * lumaBlock) % (c.verticalSampling * size * 2) == 0 {
                size *= 2
            }
            c.blockSize = size
            let across = maxHorizontalSampling * lumaBlock, down = maxVerticalSampling * lumaBlock
            guard across % (c.horizontalSampling * size) == 0, down % (c.verticalSampling * size) == 0 else {
                throw .unsupported("sampling factors \(c.horizontalSampling)x\(c.verticalSampling)")
            }
            c.upsampleX = across / (c.horizontalSampling * size)
            c.upsampleY = down / (c.verticalSampling * size)
            c.scaledWidth = (width * c.horizontalSampling * size + maxHorizontalSampling * 8 - 1) / (maxHorizontalSampling * 8)
            c.scaledHeight = (height * c.verticalSampling * size + maxVerticalSampling * 8 - 1) / (maxVerticalSampling * 8)
            components[index] = c
        }
    }
}

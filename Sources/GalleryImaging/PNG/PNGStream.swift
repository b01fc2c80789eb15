/// The chunks of a PNG that decoding needs: IHDR, PLTE, tRNS and the concatenated IDAT data.
struct PNGStream {
    let header: PNGHeader
    /// RGB triples, at most 256.
    let palette: [UInt8]
    /// The tRNS data when it is valid for the color type; nil otherwise (libpng ignores an invalid one).
    let transparency: [UInt8]?
    /// Every IDAT's data, in order.
    let compressed: [UInt8]

    /// Reads the chunks after the signature, checking sizes against `limits` before anything is
    /// allocated for the image.
    init(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) {
        var chunks = PNGChunkReader(bytes, offset: 8)
        guard let first = try chunks.next() else { throw .truncated("no IHDR chunk") }
        guard first.type == .header else { throw .malformed("the first chunk is not IHDR") }
        let header = try PNGHeader(first.data)
        let (pixels, overflow) = header.width.multipliedReportingOverflow(by: header.height)
        guard !overflow, pixels <= limits.maxDecodedPixels else {
            throw .tooLarge("\(header.width)x\(header.height) is over the bound of \(limits.maxDecodedPixels) pixels")
        }
        var palette: [UInt8] = []
        var transparencyChunk: [UInt8]?
        var dataRanges: [UnsafeRawBufferPointer] = []
        var dataEnded = false
        var sawEnd = false
        while let chunk = try chunks.next() {
            switch chunk.type {
            case .header:
                throw .malformed("a second IHDR chunk")
            case .palette:
                guard dataRanges.isEmpty else { throw .malformed("PLTE after IDAT") }
                guard palette.isEmpty else { throw .malformed("a second PLTE chunk") }
                guard chunk.data.count % 3 == 0, (3...768).contains(chunk.data.count) else {
                    throw .malformed("PLTE of \(chunk.data.count) bytes")
                }
                palette = [UInt8](chunk.data)
            case .transparency:
                guard dataRanges.isEmpty else { break }  // Too late to apply, as libpng treats it.
                transparencyChunk = [UInt8](chunk.data)
            case .data:
                guard !dataEnded else { throw .malformed("IDAT chunks are not consecutive") }
                dataRanges.append(chunk.data)
            case .end:
                sawEnd = true
            default:
                guard !chunk.type.isCritical else { throw .unsupported("the critical chunk \(chunk.type.name)") }
            }
            if sawEnd { break }
            if !dataRanges.isEmpty && chunk.type != .data { dataEnded = true }
        }
        guard !dataRanges.isEmpty else { throw .truncated("no IDAT chunk") }
        if header.colorType == .palette && palette.isEmpty { throw .malformed("a palette image without PLTE") }
        self.header = header
        self.palette = header.colorType == .palette ? palette : []
        transparency = Self.validTransparency(transparencyChunk, header: header, paletteEntries: palette.count / 3)
        let total = dataRanges.reduce(0) { $0 + $1.count }
        var compressed = [UInt8]()
        compressed.reserveCapacity(total)  // At most the file's own size.
        for range in dataRanges { compressed.append(contentsOf: range) }
        self.compressed = compressed
    }

    /// tRNS as libpng accepts it: for palette images at most one alpha per entry, 2 bytes for gray,
    /// 6 for RGB; never with an alpha channel.
    private static func validTransparency(_ chunk: [UInt8]?, header: PNGHeader, paletteEntries: Int) -> [UInt8]? {
        guard let chunk else { return nil }
        switch header.colorType {
        case .palette: return !chunk.isEmpty && chunk.count <= paletteEntries ? chunk : nil
        case .gray: return chunk.count == 2 ? chunk : nil
        case .rgb: return chunk.count == 6 ? chunk : nil
        case .grayAlpha, .rgba: return nil
        }
    }
}

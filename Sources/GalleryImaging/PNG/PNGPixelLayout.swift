/// Turns unfiltered scanlines into output pixels: unpacks bit depths, expands palettes, applies tRNS
/// and puts each (Adam7) pixel in its place. See `PNGDecoder` for the output channels and the rules.
struct PNGPixelLayout {
    let colorType: PNGHeader.ColorType
    let bitDepth: Int
    /// 1, 3 or 4.
    let outputChannels: Int
    /// 256 RGBA entries for palette images; an index past the palette reads the last entry.
    private let paletteRGBA: [UInt8]
    /// The transparent gray sample (at file depth), or -1.
    private let grayKey: Int
    /// The transparent RGB samples (at file depth), or -1s.
    private let redKey, greenKey, blueKey: Int

    init(_ stream: PNGStream) {
        let header = stream.header
        colorType = header.colorType
        bitDepth = header.bitDepth
        let hasTransparency = stream.transparency != nil
        switch header.colorType {
        case .gray: outputChannels = hasTransparency ? 4 : 1
        case .rgb, .palette: outputChannels = hasTransparency ? 4 : 3
        case .grayAlpha, .rgba: outputChannels = 4
        }
        var palette = [UInt8](repeating: 0, count: 1024)
        for entry in 0..<256 { palette[entry * 4 + 3] = 255 }
        for entry in 0..<stream.palette.count / 3 {
            palette[entry * 4] = stream.palette[entry * 3]
            palette[entry * 4 + 1] = stream.palette[entry * 3 + 1]
            palette[entry * 4 + 2] = stream.palette[entry * 3 + 2]
        }
        let key = stream.transparency.map { chunk in stride(from: 0, to: chunk.count - 1, by: 2).map { Int(chunk[$0]) << 8 | Int(chunk[$0 + 1]) } }
        if header.colorType == .palette, let alphas = stream.transparency {
            for (entry, alpha) in alphas.enumerated() { palette[entry * 4 + 3] = alpha }
        }
        // Indices past the palette read its last entry, as Chromium 156 shows them (libpng gave black).
        let entries = stream.palette.count / 3
        if entries > 0 {
            for entry in entries..<256 {
                for channel in 0..<4 { palette[entry * 4 + channel] = palette[(entries - 1) * 4 + channel] }
            }
        }
        paletteRGBA = palette
        grayKey = header.colorType == .gray ? key?[0] ?? -1 : -1
        let rgbKey = header.colorType == .rgb ? key : nil
        redKey = rgbKey?[0] ?? -1
        greenKey = rgbKey?[1] ?? -1
        blueKey = rgbKey?[2] ?? -1
    }

    /// Writes the pixels of one pass's unfiltered scanlines (each after its filter byte) into `output`.
    func place(_ scanlines: UnsafeMutableRawBufferPointer, pass: PNGHeader.Pass, rowBytes: Int,
               into output: UnsafeMutableRawBufferPointer, imageWidth: Int) {
        guard let source = scanlines.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let destination = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        paletteRGBA.withUnsafeBufferPointer { palette in
            for row in 0..<pass.height {
                let line = UnsafePointer(source + row * (rowBytes + 1) + 1)
                let y = pass.yStart + row * pass.yStep
                let first = destination + (y * imageWidth + pass.xStart) * outputChannels
                placeRow(line, count: pass.width, into: first, step: pass.xStep * outputChannels,
                         rowBytes: rowBytes, palette: palette.baseAddress!)
            }
        }
    }

    /// The `index`th sample of a row at depth 1, 2, 4 or 8 (MSB first) or 16 (big-endian).
    @inline(__always)
    private func sample(_ line: UnsafePointer<UInt8>, _ index: Int) -> Int {
        switch bitDepth {
        case 8: return Int(line[index])
        case 16: return Int(line[2 * index]) << 8 | Int(line[2 * index + 1])
        default:
            let bit = index * bitDepth
            return Int(line[bit >> 3]) >> (8 - bitDepth - (bit & 7)) & ((1 << bitDepth) - 1)
        }
    }

    /// A sample at file depth as 8 bits: the high byte of 16, bit replication below 8.
    @inline(__always)
    private func eightBit(_ value: Int) -> UInt8 {
        switch bitDepth {
        case 8: return UInt8(truncatingIfNeeded: value)
        case 16: return UInt8(truncatingIfNeeded: value >> 8)
        default: return UInt8(truncatingIfNeeded: value * (255 / ((1 << bitDepth) - 1)))
        }
    }

    private func placeRow(_ line: UnsafePointer<UInt8>, count: Int, into first: UnsafeMutablePointer<UInt8>, step: Int,
                          rowBytes: Int, palette: UnsafePointer<UInt8>) {
        // The common case of a non-interlaced 8-bit image with no conversion: a straight copy.
        if bitDepth == 8, step == outputChannels, colorType.samplesPerPixel == outputChannels, colorType != .palette {
            first.update(from: line, count: rowBytes)
            return
        }
        var out = first
        switch colorType {
        case .gray:
            for index in 0..<count {
                let value = sample(line, index)
                let gray = eightBit(value)
                if outputChannels == 1 {
                    out[0] = gray
                } else {
                    out[0] = gray; out[1] = gray; out[2] = gray
                    out[3] = value == grayKey ? 0 : 255
                }
                out += step
            }
        case .rgb:
            for index in 0..<count {
                let red = sample(line, 3 * index), green = sample(line, 3 * index + 1), blue = sample(line, 3 * index + 2)
                out[0] = eightBit(red); out[1] = eightBit(green); out[2] = eightBit(blue)
                if outputChannels == 4 { out[3] = red == redKey && green == greenKey && blue == blueKey ? 0 : 255 }
                out += step
            }
        case .palette:
            for index in 0..<count {
                let entry = palette + sample(line, index) * 4
                out[0] = entry[0]; out[1] = entry[1]; out[2] = entry[2]
                if outputChannels == 4 { out[3] = entry[3] }
                out += step
            }
        case .grayAlpha:
            for index in 0..<count {
                let gray = eightBit(sample(line, 2 * index))
                out[0] = gray; out[1] = gray; out[2] = gray
                out[3] = eightBit(sample(line, 2 * index + 1))
                out += step
            }
        case .rgba:
            for index in 0..<count {
                out[0] = eightBit(sample(line, 4 * index)); out[1] = eightBit(sample(line, 4 * index + 1))
                out[2] = eightBit(sample(line, 4 * index + 2)); out[3] = eightBit(sample(line, 4 * index + 3))
                out += step
            }
        }
    }
}

/// A PNG's IHDR chunk: size, sample format and interlacing, validated as the specification requires.
struct PNGHeader: Equatable {
    enum ColorType: UInt8 {
        case gray = 0
        case rgb = 2
        case palette = 3
        case grayAlpha = 4
        case rgba = 6

        /// Samples a pixel in the file.
        var samplesPerPixel: Int {
            switch self {
            case .gray, .palette: 1
            case .grayAlpha: 2
            case .rgb: 3
            case .rgba: 4
            }
        }

        /// The bit depths the specification allows for this color type.
        var allowedBitDepths: [Int] {
            switch self {
            case .gray: [1, 2, 4, 8, 16]
            case .palette: [1, 2, 4, 8]
            case .rgb, .grayAlpha, .rgba: [8, 16]
            }
        }
    }

    let width: Int
    let height: Int
    let bitDepth: Int
    let colorType: ColorType
    let interlaced: Bool

    /// Parses IHDR's 13 bytes.
    /// - Throws: `.malformed` for a zero or over-2^31 size, an unknown color type or one with a bit
    ///   depth it does not allow, or an unknown compression, filter or interlace method.
    init(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        guard bytes.count == 13 else { throw .malformed("IHDR is \(bytes.count) bytes, not 13") }
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        width = word(0)
        height = word(4)
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw .malformed("PNG size \(width)x\(height)")
        }
        bitDepth = Int(bytes[8])
        guard let type = ColorType(rawValue: bytes[9]) else { throw .malformed("PNG color type \(bytes[9])") }
        colorType = type
        guard type.allowedBitDepths.contains(bitDepth) else {
            throw .malformed("PNG bit depth \(bitDepth) with color type \(type.rawValue)")
        }
        guard bytes[10] == 0 else { throw .malformed("PNG compression method \(bytes[10])") }
        guard bytes[11] == 0 else { throw .malformed("PNG filter method \(bytes[11])") }
        guard bytes[12] <= 1 else { throw .malformed("PNG interlace method \(bytes[12])") }
        interlaced = bytes[12] == 1
    }

    /// Bits a pixel in the file.
    var bitsPerPixel: Int { bitDepth * colorType.samplesPerPixel }

    /// The byte distance the filters look back: one pixel, at least one byte.
    var filterStride: Int { max(1, bitsPerPixel / 8) }

    /// Bytes of a scanline `pixels` wide, without its filter byte.
    func rowBytes(_ pixels: Int) -> Int { (pixels * bitsPerPixel + 7) / 8 }

    /// One Adam7 pass (or the whole image): where its pixels go and how many there are.
    struct Pass {
        let xStart, yStart, xStep, yStep: Int
        let width, height: Int
    }

    /// The passes to decode: seven for Adam7 (empty ones left out), else one.
    var passes: [Pass] {
        guard interlaced else { return [Pass(xStart: 0, yStart: 0, xStep: 1, yStep: 1, width: width, height: height)] }
        let adam7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        return adam7.compactMap { xStart, yStart, xStep, yStep in
            let passWidth = width > xStart ? (width - xStart + xStep - 1) / xStep : 0
            let passHeight = height > yStart ? (height - yStart + yStep - 1) / yStep : 0
            guard passWidth > 0, passHeight > 0 else { return nil }
            return Pass(xStart: xStart, yStart: yStart, xStep: xStep, yStep: yStep, width: passWidth, height: passHeight)
        }
    }

    /// Bytes the image data inflates to: every pass's scanlines, each with its filter byte.
    /// Sizes up to 2^31 a side cannot overflow 64-bit arithmetic here.
    var inflatedBytes: Int {
        passes.reduce(0) { $0 + $1.height * (1 + rowBytes($1.width)) }
    }
}

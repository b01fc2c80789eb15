/// The state of one decode: the tables and frame read so far and the buffers the scans fill.
/// Lives inside `Data.withUnsafeBytes`, so `bytes` stays valid for its whole life.
struct JPEGDecodingSession {
    /// One scan's header (SOS).
    struct Scan {
        var components: [Int] = []
        var spectralStart = 0
        var spectralEnd = 63
        var approximationHigh = 0
        var approximationLow = 0
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let scaleDenominator: Int
    let limits: ImageLimits
    var frame: JPEGFrame?
    /// Four dequantization tables, natural order.
    var quant = [Int32](repeating: 0, count: 4 * 64)
    var quantDefined = [Bool](repeating: false, count: 4)
    /// Eight Huffman tables: DC 0-3, then AC 0-3, each `JPEGHuffmanTable.storageCount` long.
    var huffman = [Int32](repeating: 0, count: 8 * JPEGHuffmanTable.storageCount)
    var huffmanDefined = [Bool](repeating: false, count: 8)
    var restartInterval = 0
    /// The Adobe APP14 transform flag: 0 = RGB or CMYK as stored, 1 = YCbCr, 2 = YCCK.
    var adobeTransform: Int?
    /// Every component's output-resolution plane (sequential scans write it directly).
    var planes: [UInt8] = []
    /// Every block's coefficients in natural order (progressive only: scans refine them).
    var coefficients: [Int16] = []
    var completedScans = 0

    init(bytes: UnsafeBufferPointer<UInt8>, scaleDenominator: Int, limits: ImageLimits) {
        self.bytes = bytes
        self.scaleDenominator = scaleDenominator
        self.limits = limits
    }

    /// Walks the markers, decodes every scan and converts the planes to pixels.
    mutating func run() throws(ImageError) -> RasterImage {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw .unrecognizedFormat }
        var position = 2
        markers: while let (marker, after) = nextMarker(from: position) {
            position = after
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7:
                continue
            case 0xD9:
                break markers
            default:
                guard position + 2 <= bytes.count else { throw .truncated("marker length") }
                let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
                guard length >= 2, position + length <= bytes.count else { throw .truncated("marker segment") }
                let body = UnsafeBufferPointer(rebasing: bytes[(position + 2)..<(position + length)])
                position += length
                switch marker {
                case 0xC0, 0xC1: try startFrame(body, progressive: false)
                case 0xC2: try startFrame(body, progressive: true)
                case 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                    throw .unsupported("lossless, hierarchical or arithmetic-coded JPEG")
                case 0xC4: try defineHuffmanTables(body)
                case 0xDB: try defineQuantTables(body)
                case 0xDD:
                    guard body.count >= 2 else { throw .truncated("restart interval") }
                    restartInterval = Int(body[0]) << 8 | Int(body[1])
                case 0xEE:
                    // "Adobe" + version(2) + flags0(2) + flags1(2) + transform(1)
                    if body.count >= 12, Array(body[0..<5]) == Array("Adobe".utf8) { adobeTransform = Int(body[11]) }
                case 0xDA:
                    position = try decodeScan(header: body, dataStart: position)
                default:
                    break
                }
            }
        }
        guard frame != nil else { throw .malformed("no frame header") }
        guard completedScans > 0 else { throw .truncated("no scan data") }
        return try makeImage()
    }

    /// The next marker at or after `position`, skipping entropy-coded bytes, stuffed 0xFF00 and
    /// fill bytes; nil at the end of the data.
    func nextMarker(from start: Int) -> (marker: UInt8, after: Int)? {
        var position = start
        while position + 1 < bytes.count {
            if bytes[position] == 0xFF {
                let marker = bytes[position + 1]
                if marker != 0 && marker != 0xFF { return (marker, position + 2) }
                position += marker == 0 ? 2 : 1
            } else {
                position += 1
            }
        }
        return nil
    }

    mutating func startFrame(_ body: UnsafeBufferPointer<UInt8>, progressive: Bool) throws(ImageError) {
        guard frame == nil else { throw .malformed("second frame header") }
        var newFrame = try JPEGFrame(segment: body, progressive: progressive)
        try newFrame.applyScale(scaleDenominator)
        let output = newFrame.scaledSize(scaleDenominator)
        let channels = newFrame.components.count == 1 ? 1 : 3
        // Check every size before the first allocation: a hostile header costs an error, not memory.
        guard output.width * output.height <= limits.maxDecodedPixels else {
            throw .tooLarge("\(output.width)x\(output.height) pixels after scaling")
        }
        var planeBytes = 0, coefficientCount = 0
        for index in newFrame.components.indices {
            let c = newFrame.components[index]
            newFrame.components[index].planeOffset = planeBytes
            newFrame.components[index].coefficientOffset = coefficientCount
            planeBytes += c.blocksPerLine * c.blockSize * c.blocksPerColumn * c.blockSize
            // A 1/8 decode needs only each block's DC, and skips the AC scans of that component.
            newFrame.components[index].coefficientsPerBlock = c.blockSize == 1 ? 1 : 64
            if progressive { coefficientCount += c.blocksPerLine * c.blocksPerColumn * newFrame.components[index].coefficientsPerBlock }
        }
        let working = planeBytes + coefficientCount * 2 + output.width * output.height * channels
        guard working <= limits.maxWorkingBytes else {
            throw .tooLarge("\(working) bytes of working memory for \(newFrame.width)x\(newFrame.height)")
        }
        planes = [UInt8](repeating: 0, count: planeBytes)
        coefficients = [Int16](repeating: 0, count: coefficientCount)
        frame = newFrame
    }

    mutating func defineQuantTables(_ body: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        var position = 0
        while position < body.count {
            let precision = Int(body[position] >> 4), index = Int(body[position] & 15)
            guard index < 4, precision <= 1 else { throw .malformed("quantization table header") }
            let size = precision == 0 ? 64 : 128
            guard position + 1 + size <= body.count else { throw .truncated("quantization table") }
            for k in 0..<64 {
                let value = precision == 0
                    ? Int32(body[position + 1 + k])
                    : Int32(body[position + 1 + 2 * k]) << 8 | Int32(body[position + 2 + 2 * k])
                quant[index * 64 + Int(JPEGZigzag.natural[k])] = value
            }
            quantDefined[index] = true
            position += 1 + size
        }
    }

    mutating func defineHuffmanTables(_ body: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        var position = 0
        while position < body.count {
            let tableClass = Int(body[position] >> 4), index = Int(body[position] & 15)
            guard tableClass <= 1, index < 4 else { throw .malformed("Huffman table header") }
            guard position + 17 <= body.count else { throw .truncated("Huffman table") }
            let counts = (0..<16).map { Int(body[position + 1 + $0]) }
            let total = counts.reduce(0, +)
            guard total <= 256 else { throw .malformed("Huffman table symbol count") }
            guard position + 17 + total <= body.count else { throw .truncated("Huffman table") }
            let symbols = Array(body[(position + 17)..<(position + 17 + total)])
            let table = try JPEGHuffmanTable(counts: counts, symbols: symbols)
            let slot = tableClass * 4 + index
            huffman.replaceSubrange(
                (slot * JPEGHuffmanTable.storageCount)..<((slot + 1) * JPEGHuffmanTable.storageCount), with: table.storage)
            huffmanDefined[slot] = true
            position += 17 + total
        }
    }

    /// Parses SOS, checks it against the frame and tables, and decodes its entropy-coded data.
    /// Returns where the data stopped (the next marker is at or after it).
    mutating func decodeScan(header body: UnsafeBufferPointer<UInt8>, dataStart: Int) throws(ImageError) -> Int {
        guard let frame else { throw .malformed("scan before frame header") }
        guard body.count >= 1 else { throw .truncated("scan header") }
        let count = Int(body[0])
        guard (1...4).contains(count), body.count >= 4 + 2 * count else { throw .malformed("scan header") }
        var scan = Scan()
        for index in 0..<count {
            let id = body[1 + 2 * index], tables = body[2 + 2 * index]
            guard let component = frame.components.firstIndex(where: { $0.id == id }),
                  !scan.components.contains(component) else { throw .malformed("scan component") }
            let dc = Int(tables >> 4), ac = Int(tables & 15)
            guard dc < 4, ac < 4 else { throw .malformed("scan table index") }
            self.frame?.components[component].dcTable = dc
            self.frame?.components[component].acTable = ac
            scan.components.append(component)
        }
        let tail = 1 + 2 * count
        scan.spectralStart = Int(body[tail])
        scan.spectralEnd = Int(body[tail + 1])
        scan.approximationHigh = Int(body[tail + 2] >> 4)
        scan.approximationLow = Int(body[tail + 2] & 15)
        let components = self.frame?.components ?? []
        for index in scan.components {
            guard quantDefined[components[index].quantTable] else { throw .malformed("missing quantization table") }
        }
        if frame.progressive {
            guard scan.spectralStart <= scan.spectralEnd, scan.spectralEnd <= 63, scan.approximationLow <= 13,
                  (scan.spectralStart == 0) == (scan.spectralEnd == 0),
                  scan.spectralStart == 0 || count == 1 else { throw .malformed("progressive scan parameters") }
            let dcFirst = scan.spectralStart == 0 && scan.approximationHigh == 0
            for index in scan.components {
                let slot = scan.spectralStart == 0 ? components[index].dcTable : 4 + components[index].acTable
                if scan.spectralStart > 0 || dcFirst { guard huffmanDefined[slot] else { throw .malformed("missing Huffman table") } }
            }
            let end = try decodeProgressiveScan(scan, dataStart: dataStart)
            completedScans += 1
            return end
        }
        for index in scan.components {
            guard huffmanDefined[components[index].dcTable], huffmanDefined[4 + components[index].acTable] else {
                throw .malformed("missing Huffman table")
            }
        }
        let end = try decodeSequentialScan(scan, dataStart: dataStart)
        completedScans += 1
        return end
    }
}

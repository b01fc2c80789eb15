/// Undoes PNG's five scanline filters (None, Sub, Up, Average, Paeth), in place.
enum PNGFilters {
    /// Unfilters `rows` scanlines of `rowBytes` bytes, each after its filter-type byte; the first row's
    /// "previous row" is zeros. `stride` is the bytes a pixel (at least 1).
    /// - Throws: `.malformed` for a filter type above 4.
    static func unfilter(_ scanlines: UnsafeMutableRawBufferPointer, rowBytes: Int, rows: Int, stride: Int) throws(ImageError) {
        guard rows > 0, rowBytes > 0, let base = scanlines.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let zeros = [UInt8](repeating: 0, count: rowBytes)
        try zeros.withUnsafeBufferPointer { (zeroRow) throws(ImageError) in
            var previous = UnsafePointer<UInt8>(zeroRow.baseAddress!)
            for row in 0..<rows {
                let line = base + row * (rowBytes + 1)
                let current = line + 1
                switch line.pointee {
                case 0:
                    break
                case 1:
                    sub(current, count: rowBytes, stride: stride)
                case 2:
                    up(current, previous, count: rowBytes)
                case 3:
                    average(current, previous, count: rowBytes, stride: stride)
                case 4:
                    paeth(current, previous, count: rowBytes, stride: stride)
                default:
                    throw .malformed("PNG filter type \(line.pointee) in scanline \(row)")
                }
                previous = UnsafePointer(current)
            }
        }
    }

    private static func sub(_ row: UnsafeMutablePointer<UInt8>, count: Int, stride: Int) {
        var index = stride
        while index < count {
            row[index] &+= row[index - stride]
            index += 1
        }
    }

    private static func up(_ row: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>, count: Int) {
        for index in 0..<count { row[index] &+= previous[index] }
    }

    private static func average(_ row: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>, count: Int, stride: Int) {
        for index in 0..<min(stride, count) { row[index] &+= previous[index] >> 1 }
        var index = stride
        while index < count {
            row[index] &+= UInt8((UInt16(row[index - stride]) + UInt16(previous[index])) >> 1)
            index += 1
        }
    }

    private static func paeth(_ row: UnsafeMutablePointer<UInt8>, _ previous: UnsafePointer<UInt8>, count: Int, stride: Int) {
        for index in 0..<min(stride, count) { row[index] &+= previous[index] }
        var index = stride
        while index < count {
            let a = Int(row[index - stride]), b = Int(previous[index]), c = Int(previous[index - stride])
            let p = a + b - c
            let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
            let predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            row[index] &+= UInt8(truncatingIfNeeded: predictor)
            index += 1
        }
    }
}

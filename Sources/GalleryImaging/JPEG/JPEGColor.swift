/// JFIF's YCbCr to RGB (jdcolor.c's fixed point: 16 fraction bits, the same rounding).
enum JPEGColor {
    /// Cr->R, Cb->B, Cr->G and Cb->G terms, 256 each, in one array.
    static let tables: [Int32] = {
        var t = [Int32](repeating: 0, count: 1024)
        let half: Int64 = 1 << 15
        func fix(_ x: Double) -> Int64 { Int64(x * 65536 + 0.5) }
        for i in 0..<256 {
            let x = Int64(i - 128)
            t[i] = Int32((fix(1.40200) * x + half) >> 16)
            t[256 + i] = Int32((fix(1.77200) * x + half) >> 16)
            t[512 + i] = Int32(-fix(0.71414) * x)
            t[768 + i] = Int32(-fix(0.34414) * x + half)
        }
        return t
    }()

    @inline(__always) static func clamp(_ value: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: value < 0 ? 0 : (value > 255 ? 255 : value))
    }

    static func convertRow(
        _ luma: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
        _ out: UnsafeMutablePointer<UInt8>, _ width: Int, _ t: UnsafePointer<Int32>
    ) {
        for x in 0..<width {
            let y = Int32(luma[x]), blue = Int(cb[x]), red = Int(cr[x])
            out[3 * x] = clamp(y + t[red])
            out[3 * x + 1] = clamp(y + ((t[768 + blue] + t[512 + red]) >> 16))
            out[3 * x + 2] = clamp(y + t[256 + blue])
        }
    }
}

/// The AAN forward DCT in floating point (libjpeg's jfdctflt), with its per-coefficient scale
/// folded into the quantization divisors.
enum JPEGForwardDCT {
    static let aanScale: [Float] = [1.0, 1.387039845, 1.306562965, 1.175875602, 1.0, 0.785694958, 0.541196100, 0.275899379]

    /// Multipliers that turn a raw AAN output into a quantized value: 1 / (q * aan[row] * aan[col] * 8).
    static func divisors(_ quant: [Int]) -> [Float] {
        (0..<64).map { i in 1 / (Float(quant[i]) * aanScale[i / 8] * aanScale[i % 8] * 8) }
    }

    /// In-place 2-D DCT of 64 level-shifted samples (row-major).
    @inline(__always) static func transform(_ d: UnsafeMutablePointer<Float>) {
        for pass in 0..<2 {
            // Rows first (step 1 within a line of 8), then columns (step 8).
            let step = pass == 0 ? 1 : 8, advance = pass == 0 ? 8 : 1
            for line in 0..<8 {
                let p = d + line * advance
                let tmp0 = p[0] + p[7 * step], tmp7 = p[0] - p[7 * step]
                let tmp1 = p[step] + p[6 * step], tmp6 = p[step] - p[6 * step]
                let tmp2 = p[2 * step] + p[5 * step], tmp5 = p[2 * step] - p[5 * step]
                let tmp3 = p[3 * step] + p[4 * step], tmp4 = p[3 * step] - p[4 * step]
                var tmp10 = tmp0 + tmp3, tmp11 = tmp1 + tmp2
                let tmp13 = tmp0 - tmp3
                var tmp12 = tmp1 - tmp2
                p[0] = tmp10 + tmp11
                p[4 * step] = tmp10 - tmp11
                let z1 = (tmp12 + tmp13) * 0.707106781
                p[2 * step] = tmp13 + z1
                p[6 * step] = tmp13 - z1
                tmp10 = tmp4 + tmp5
                tmp11 = tmp5 + tmp6
                tmp12 = tmp6 + tmp7
                let z5 = (tmp10 - tmp12) * 0.382683433
                let z2 = 0.541196100 * tmp10 + z5
                let z4 = 1.306562965 * tmp12 + z5
                let z3 = tmp11 * 0.707106781
                let z11 = tmp7 + z3, z13 = tmp7 - z3
                p[5 * step] = z13 + z2
                p[3 * step] = z13 - z2
                p[step] = z11 + z4
                p[7 * step] = z11 - z4
            }
        }
    }
}

/// The integer inverse DCTs of libjpeg: the accurate 8x8 (jidctint's islow) and the reduced
/// 4x4, 2x2 and 1x1 of jidctred, which turn one block's coefficients straight into a 1/2, 1/4 or
/// 1/8 size block. Same constants and rounding as libjpeg, so a scaled decode matches `djpeg -scale`.
/// Coefficients are in natural (row-major) order; `quant` is the dequantization table, natural order.
enum JPEGInverseDCT {
    private static let constBits: Int32 = 13
    private static let pass1Bits: Int32 = 2

    @inline(__always) private static func clamp(_ value: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: value < 0 ? 0 : (value > 255 ? 255 : value))
    }

    @inline(__always) private static func descale(_ value: Int32, _ n: Int32) -> Int32 {
        (value &+ (1 << (n - 1))) >> n
    }

    /// The full 8x8 inverse DCT (jpeg_idct_islow).
    static func idct8x8(
        _ input: UnsafePointer<Int16>, _ quant: UnsafePointer<Int32>,
        _ output: UnsafeMutablePointer<UInt8>, _ stride: Int, _ workspace: UnsafeMutablePointer<Int32>
    ) {
        for column in 0..<8 {
            let i = input + column, q = quant + column, w = workspace + column
            if i[8] == 0 && i[16] == 0 && i[24] == 0 && i[32] == 0 && i[40] == 0 && i[48] == 0 && i[56] == 0 {
                // A column with only its DC term is flat: the common case, done without multiplies.
                let dc = (Int32(i[0]) &* q[0]) << pass1Bits
                for row in 0..<8 { w[row * 8] = dc }
                continue
            }
            var z2 = Int32(i[16]) &* q[16], z3 = Int32(i[48]) &* q[48]
            var z1 = (z2 &+ z3) &* 4433
            let tmp2e = z1 &+ z3 &* -15137
            let tmp3e = z1 &+ z2 &* 6270
            z2 = Int32(i[0]) &* q[0]
            z3 = Int32(i[32]) &* q[32]
            let tmp0e = (z2 &+ z3) << constBits
            let tmp1e = (z2 &- z3) << constBits
            let tmp10 = tmp0e &+ tmp3e, tmp13 = tmp0e &- tmp3e
            let tmp11 = tmp1e &+ tmp2e, tmp12 = tmp1e &- tmp2e

            var tmp0 = Int32(i[56]) &* q[56], tmp1 = Int32(i[40]) &* q[40]
            var tmp2 = Int32(i[24]) &* q[24], tmp3 = Int32(i[8]) &* q[8]
            z1 = tmp0 &+ tmp3
            z2 = tmp1 &+ tmp2
            z3 = tmp0 &+ tmp2
            var z4 = tmp1 &+ tmp3
            let z5 = (z3 &+ z4) &* 9633
            tmp0 = tmp0 &* 2446; tmp1 = tmp1 &* 16819; tmp2 = tmp2 &* 25172; tmp3 = tmp3 &* 12299
            z1 = z1 &* -7373; z2 = z2 &* -20995; z3 = z3 &* -16069; z4 = z4 &* -3196
            z3 = z3 &+ z5; z4 = z4 &+ z5
            tmp0 = tmp0 &+ z1 &+ z3; tmp1 = tmp1 &+ z2 &+ z4
            tmp2 = tmp2 &+ z2 &+ z3; tmp3 = tmp3 &+ z1 &+ z4

            let n = constBits - pass1Bits
            w[0] = descale(tmp10 &+ tmp3, n); w[56] = descale(tmp10 &- tmp3, n)
            w[8] = descale(tmp11 &+ tmp2, n); w[48] = descale(tmp11 &- tmp2, n)
            w[16] = descale(tmp12 &+ tmp1, n); w[40] = descale(tmp12 &- tmp1, n)
            w[24] = descale(tmp13 &+ tmp0, n); w[32] = descale(tmp13 &- tmp0, n)
        }
        for row in 0..<8 {
            let w = workspace + row * 8, o = output + row * stride
            if w[1] == 0 && w[2] == 0 && w[3] == 0 && w[4] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0 {
                let value = clamp(descale(w[0], pass1Bits + 3) &+ 128)
                for x in 0..<8 { o[x] = value }
                continue
            }
            var z2 = w[2], z3 = w[6]
            var z1 = (z2 &+ z3) &* 4433
            let tmp2e = z1 &+ z3 &* -15137
            let tmp3e = z1 &+ z2 &* 6270
            z2 = w[0]; z3 = w[4]
            let tmp0e = (z2 &+ z3) << constBits
            let tmp1e = (z2 &- z3) << constBits
            let tmp10 = tmp0e &+ tmp3e, tmp13 = tmp0e &- tmp3e
            let tmp11 = tmp1e &+ tmp2e, tmp12 = tmp1e &- tmp2e

            var tmp0 = w[7], tmp1 = w[5], tmp2 = w[3], tmp3 = w[1]
            z1 = tmp0 &+ tmp3; z2 = tmp1 &+ tmp2; z3 = tmp0 &+ tmp2
            var z4 = tmp1 &+ tmp3
            let z5 = (z3 &+ z4) &* 9633
            tmp0 = tmp0 &* 2446; tmp1 = tmp1 &* 16819; tmp2 = tmp2 &* 25172; tmp3 = tmp3 &* 12299
            z1 = z1 &* -7373; z2 = z2 &* -20995; z3 = z3 &* -16069; z4 = z4 &* -3196
            z3 = z3 &+ z5; z4 = z4 &+ z5
            tmp0 = tmp0 &+ z1 &+ z3; tmp1 = tmp1 &+ z2 &+ z4
            tmp2 = tmp2 &+ z2 &+ z3; tmp3 = tmp3 &+ z1 &+ z4

            let n = constBits + pass1Bits + 3
            o[0] = clamp(descale(tmp10 &+ tmp3, n) &+ 128); o[7] = clamp(descale(tmp10 &- tmp3, n) &+ 128)
            o[1] = clamp(descale(tmp11 &+ tmp2, n) &+ 128); o[6] = clamp(descale(tmp11 &- tmp2, n) &+ 128)
            o[2] = clamp(descale(tmp12 &+ tmp1, n) &+ 128); o[5] = clamp(descale(tmp12 &- tmp1, n) &+ 128)
            o[3] = clamp(descale(tmp13 &+ tmp0, n) &+ 128); o[4] = clamp(descale(tmp13 &- tmp0, n) &+ 128)
        }
    }

    /// A 4x4 output block from the 8x8 coefficients (jpeg_idct_4x4): the 1/2 scale.
    static func idct4x4(
        _ input: UnsafePointer<Int16>, _ quant: UnsafePointer<Int32>,
        _ output: UnsafeMutablePointer<UInt8>, _ stride: Int, _ workspace: UnsafeMutablePointer<Int32>
    ) {
        for column in 0..<8 where column != 4 {
            let i = input + column, q = quant + column, w = workspace + column
            if i[8] == 0 && i[16] == 0 && i[24] == 0 && i[40] == 0 && i[48] == 0 && i[56] == 0 {
                let dc = (Int32(i[0]) &* q[0]) << pass1Bits
                w[0] = dc; w[8] = dc; w[16] = dc; w[24] = dc
                continue
            }
            let tmp0e = (Int32(i[0]) &* q[0]) << (constBits + 1)
            let tmp2e = (Int32(i[16]) &* q[16]) &* 15137 &+ (Int32(i[48]) &* q[48]) &* -6270
            let tmp10 = tmp0e &+ tmp2e, tmp12 = tmp0e &- tmp2e
            let z1 = Int32(i[56]) &* q[56], z2 = Int32(i[40]) &* q[40]
            let z3 = Int32(i[24]) &* q[24], z4 = Int32(i[8]) &* q[8]
            let tmp0 = z1 &* -1730 &+ z2 &* 11893 &+ z3 &* -17799 &+ z4 &* 8697
            let tmp2 = z1 &* -4176 &+ z2 &* -4926 &+ z3 &* 7373 &+ z4 &* 20995
            let n = constBits - pass1Bits + 1
            w[0] = descale(tmp10 &+ tmp2, n); w[24] = descale(tmp10 &- tmp2, n)
            w[8] = descale(tmp12 &+ tmp0, n); w[16] = descale(tmp12 &- tmp0, n)
        }
        for row in 0..<4 {
            let w = workspace + row * 8, o = output + row * stride
            if w[1] == 0 && w[2] == 0 && w[3] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0 {
                let value = clamp(descale(w[0], pass1Bits + 3) &+ 128)
                o[0] = value; o[1] = value; o[2] = value; o[3] = value
                continue
            }
            let tmp0e = w[0] << (constBits + 1)
            let tmp2e = w[2] &* 15137 &+ w[6] &* -6270
            let tmp10 = tmp0e &+ tmp2e, tmp12 = tmp0e &- tmp2e
            let z1 = w[7], z2 = w[5], z3 = w[3], z4 = w[1]
            let tmp0 = z1 &* -1730 &+ z2 &* 11893 &+ z3 &* -17799 &+ z4 &* 8697
            let tmp2 = z1 &* -4176 &+ z2 &* -4926 &+ z3 &* 7373 &+ z4 &* 20995
            let n = constBits + pass1Bits + 3 + 1
            o[0] = clamp(descale(tmp10 &+ tmp2, n) &+ 128); o[3] = clamp(descale(tmp10 &- tmp2, n) &+ 128)
            o[1] = clamp(descale(tmp12 &+ tmp0, n) &+ 128); o[2] = clamp(descale(tmp12 &- tmp0, n) &+ 128)
        }
    }

    /// A 2x2 output block (jpeg_idct_2x2): the 1/4 scale.
    static func idct2x2(
        _ input: UnsafePointer<Int16>, _ quant: UnsafePointer<Int32>,
        _ output: UnsafeMutablePointer<UInt8>, _ stride: Int, _ workspace: UnsafeMutablePointer<Int32>
    ) {
        for column in 0..<8 where column == 0 || column & 1 == 1 {
            let i = input + column, q = quant + column, w = workspace + column
            if i[8] == 0 && i[24] == 0 && i[40] == 0 && i[56] == 0 {
                let dc = (Int32(i[0]) &* q[0]) << pass1Bits
                w[0] = dc; w[8] = dc
                continue
            }
            let tmp10 = (Int32(i[0]) &* q[0]) << (constBits + 2)
            let tmp0 = (Int32(i[56]) &* q[56]) &* -5906 &+ (Int32(i[40]) &* q[40]) &* 6967
                &+ (Int32(i[24]) &* q[24]) &* -10426 &+ (Int32(i[8]) &* q[8]) &* 29692
            let n = constBits - pass1Bits + 2
            w[0] = descale(tmp10 &+ tmp0, n)
            w[8] = descale(tmp10 &- tmp0, n)
        }
        for row in 0..<2 {
            let w = workspace + row * 8, o = output + row * stride
            let tmp10 = w[0] << (constBits + 2)
            let tmp0 = w[7] &* -5906 &+ w[5] &* 6967 &+ w[3] &* -10426 &+ w[1] &* 29692
            let n = constBits + pass1Bits + 3 + 2
            o[0] = clamp(descale(tmp10 &+ tmp0, n) &+ 128)
            o[1] = clamp(descale(tmp10 &- tmp0, n) &+ 128)
        }
    }

    /// One pixel, the block's mean (jpeg_idct_1x1): the 1/8 scale needs only the DC coefficient.
    @inline(__always) static func idct1x1(_ input: UnsafePointer<Int16>, _ quant: UnsafePointer<Int32>, _ output: UnsafeMutablePointer<UInt8>) {
        output[0] = clamp(descale(Int32(input[0]) &* quant[0], 3) &+ 128)
    }
}

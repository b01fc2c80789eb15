/// The compression function of FIPS 180-4 (6.2.2) in portable Swift.
extension SHA256 {
    /// The round constants K0...K63: the first 32 bits of the fractional parts of the cube roots
    /// of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// Runs the compression function over `count` consecutive 64-byte blocks at `blocks`, in
    /// portable Swift (the fallback where the CPU has no SHA instructions, or when
    /// `GALLERY_SHA256_PORTABLE` asks for it).
    ///
    /// The 16 most recent schedule words live in locals (in registers or on the stack), and each of
    /// rounds 16-63 first extends the schedule in place, so nothing is allocated or bounds-checked.
    /// - Complexity: O(`count`).
    static func compressPortable(_ state: inout Words, blocks: UnsafeRawPointer, count: Int) {
        var (h0, h1, h2, h3, h4, h5, h6, h7) = state
        roundConstants.withUnsafeBufferPointer { constants in
            let k = constants.baseAddress!
            var block = blocks
            for _ in 0..<count {
                var w0 = block.loadUnaligned(fromByteOffset: 0, as: UInt32.self).bigEndian
                var w1 = block.loadUnaligned(fromByteOffset: 4, as: UInt32.self).bigEndian
                var w2 = block.loadUnaligned(fromByteOffset: 8, as: UInt32.self).bigEndian
                var w3 = block.loadUnaligned(fromByteOffset: 12, as: UInt32.self).bigEndian
                var w4 = block.loadUnaligned(fromByteOffset: 16, as: UInt32.self).bigEndian
                var w5 = block.loadUnaligned(fromByteOffset: 20, as: UInt32.self).bigEndian
                var w6 = block.loadUnaligned(fromByteOffset: 24, as: UInt32.self).bigEndian
                var w7 = block.loadUnaligned(fromByteOffset: 28, as: UInt32.self).bigEndian
                var w8 = block.loadUnaligned(fromByteOffset: 32, as: UInt32.self).bigEndian
                var w9 = block.loadUnaligned(fromByteOffset: 36, as: UInt32.self).bigEndian
                var w10 = block.loadUnaligned(fromByteOffset: 40, as: UInt32.self).bigEndian
                var w11 = block.loadUnaligned(fromByteOffset: 44, as: UInt32.self).bigEndian
                var w12 = block.loadUnaligned(fromByteOffset: 48, as: UInt32.self).bigEndian
                var w13 = block.loadUnaligned(fromByteOffset: 52, as: UInt32.self).bigEndian
                var w14 = block.loadUnaligned(fromByteOffset: 56, as: UInt32.self).bigEndian
                var w15 = block.loadUnaligned(fromByteOffset: 60, as: UInt32.self).bigEndian
                var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
                var bc = b ^ c

                // Rounds 0-15 take the message words as they are.
                round(a, b, c, &d, e, f, g, &h, k[0] &+ w0, &bc)
                round(h, a, b, &c, d, e, f, &g, k[1] &+ w1, &bc)
                round(g, h, a, &b, c, d, e, &f, k[2] &+ w2, &bc)
                round(f, g, h, &a, b, c, d, &e, k[3] &+ w3, &bc)
                round(e, f, g, &h, a, b, c, &d, k[4] &+ w4, &bc)
                round(d, e, f, &g, h, a, b, &c, k[5] &+ w5, &bc)
                round(c, d, e, &f, g, h, a, &b, k[6] &+ w6, &bc)
                round(b, c, d, &e, f, g, h, &a, k[7] &+ w7, &bc)
                round(a, b, c, &d, e, f, g, &h, k[8] &+ w8, &bc)
                round(h, a, b, &c, d, e, f, &g, k[9] &+ w9, &bc)
                round(g, h, a, &b, c, d, e, &f, k[10] &+ w10, &bc)
                round(f, g, h, &a, b, c, d, &e, k[11] &+ w11, &bc)
                round(e, f, g, &h, a, b, c, &d, k[12] &+ w12, &bc)
                round(d, e, f, &g, h, a, b, &c, k[13] &+ w13, &bc)
                round(c, d, e, &f, g, h, a, &b, k[14] &+ w14, &bc)
                round(b, c, d, &e, f, g, h, &a, k[15] &+ w15, &bc)

                // Rounds 16-63 first extend the schedule: W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16].
                var t = 16
                while t < 64 {
                    w0 = extend(w0, w1, w9, w14)
                    round(a, b, c, &d, e, f, g, &h, k[t] &+ w0, &bc)
                    w1 = extend(w1, w2, w10, w15)
                    round(h, a, b, &c, d, e, f, &g, k[t &+ 1] &+ w1, &bc)
                    w2 = extend(w2, w3, w11, w0)
                    round(g, h, a, &b, c, d, e, &f, k[t &+ 2] &+ w2, &bc)
                    w3 = extend(w3, w4, w12, w1)
                    round(f, g, h, &a, b, c, d, &e, k[t &+ 3] &+ w3, &bc)
                    w4 = extend(w4, w5, w13, w2)
                    round(e, f, g, &h, a, b, c, &d, k[t &+ 4] &+ w4, &bc)
                    w5 = extend(w5, w6, w14, w3)
                    round(d, e, f, &g, h, a, b, &c, k[t &+ 5] &+ w5, &bc)
                    w6 = extend(w6, w7, w15, w4)
                    round(c, d, e, &f, g, h, a, &b, k[t &+ 6] &+ w6, &bc)
                    w7 = extend(w7, w8, w0, w5)
                    round(b, c, d, &e, f, g, h, &a, k[t &+ 7] &+ w7, &bc)
                    w8 = extend(w8, w9, w1, w6)
                    round(a, b, c, &d, e, f, g, &h, k[t &+ 8] &+ w8, &bc)
                    w9 = extend(w9, w10, w2, w7)
                    round(h, a, b, &c, d, e, f, &g, k[t &+ 9] &+ w9, &bc)
                    w10 = extend(w10, w11, w3, w8)
                    round(g, h, a, &b, c, d, e, &f, k[t &+ 10] &+ w10, &bc)
                    w11 = extend(w11, w12, w4, w9)
                    round(f, g, h, &a, b, c, d, &e, k[t &+ 11] &+ w11, &bc)
                    w12 = extend(w12, w13, w5, w10)
                    round(e, f, g, &h, a, b, c, &d, k[t &+ 12] &+ w12, &bc)
                    w13 = extend(w13, w14, w6, w11)
                    round(d, e, f, &g, h, a, b, &c, k[t &+ 13] &+ w13, &bc)
                    w14 = extend(w14, w15, w7, w12)
                    round(c, d, e, &f, g, h, a, &b, k[t &+ 14] &+ w14, &bc)
                    w15 = extend(w15, w0, w8, w13)
                    round(b, c, d, &e, f, g, h, &a, k[t &+ 15] &+ w15, &bc)
                    t &+= 16
                }

                h0 &+= a
                h1 &+= b
                h2 &+= c
                h3 &+= d
                h4 &+= e
                h5 &+= f
                h6 &+= g
                h7 &+= h
                block += SHA256.blockByteCount
            }
        }
        state = (h0, h1, h2, h3, h4, h5, h6, h7)
    }

    /// The next schedule word from W[t-16], W[t-15], W[t-7] and W[t-2].
    @inline(__always)
    private static func extend(_ w16: UInt32, _ w15: UInt32, _ w7: UInt32, _ w2: UInt32) -> UInt32 {
        w16 &+ smallSigma0(w15) &+ w7 &+ smallSigma1(w2)
    }

    /// One round: folds `kw` (K[t] + W[t]) into `h` and `d`; the caller rotates the names a...h.
    ///
    /// `bc` carries b XOR c between rounds: Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)), and this
    /// round's a ^ b is the next round's b ^ c.
    @inline(__always)
    private static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32, _ bc: inout UInt32
    ) {
        let ab = a ^ b
        // Ch(e, f, g) = (e & f) ^ (~e & g), in a form with one operation fewer.
        let t1 = h &+ bigSigma1(e) &+ (g ^ (e & (f ^ g))) &+ kw
        let t2 = bigSigma0(a) &+ (b ^ (ab & bc))
        bc = ab
        d &+= t1
        h = t1 &+ t2
    }

    /// `x` rotated right by `n` bits, 0 < n < 32.
    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
        (x &>> n) | (x &<< (32 &- n))
    }

    /// Σ0 of FIPS 180-4 (4.4): ROTR2 ^ ROTR13 ^ ROTR22, nested to need fewer register copies.
    @inline(__always)
    private static func bigSigma0(_ x: UInt32) -> UInt32 { rotr(rotr(rotr(x, 9) ^ x, 11) ^ x, 2) }

    /// Σ1 of FIPS 180-4 (4.5): ROTR6 ^ ROTR11 ^ ROTR25, nested to need fewer register copies.
    @inline(__always)
    private static func bigSigma1(_ x: UInt32) -> UInt32 { rotr(rotr(rotr(x, 14) ^ x, 5) ^ x, 6) }

    /// σ0 of FIPS 180-4 (4.6): ROTR7 ^ ROTR18 ^ SHR3, the rotations nested.
    @inline(__always)
    private static func smallSigma0(_ x: UInt32) -> UInt32 { rotr(rotr(x, 11) ^ x, 7) ^ (x &>> 3) }

    /// σ1 of FIPS 180-4 (4.7): ROTR17 ^ ROTR19 ^ SHR10, the rotations nested.
    @inline(__always)
    private static func smallSigma1(_ x: UInt32) -> UInt32 { rotr(rotr(x, 2) ^ x, 17) ^ (x &>> 10) }
}

internal import CChaChaPolyKernels

/// The Poly1305 one-time authenticator of RFC 8439 (section 2.5): a 16-byte tag of a message
/// under a 32-byte one-time key (r, clamped, and s).
///
/// Arithmetic modulo 2^130 - 5 in five 26-bit limbs with 64-bit products (the "donna-32" layout).
/// With a wide kernel (`ChaCha20.Kernel.x86AVX2`, `.x86AVX512VL`), runs of 16 blocks or more go four blocks at a
/// time through the C target `CChaChaPolyKernels` (four accumulators in vector lanes, multiplied
/// by r^4, and at the end by r^4, r^3, r^2, r), in the same limbs.
/// **Constant time:** no branch or memory index depends on the key, the message or the
/// accumulator; the final reduction selects h or h - p with a mask. Only the (public) message
/// length steers the loops. A key must authenticate one message only: `ChaCha20Poly1305` derives
/// a fresh one per nonce.
package struct Poly1305: Sendable {
    /// r, clamped, in 26-bit limbs.
    private let r0, r1, r2, r3, r4: UInt64
    /// 5·r1 ... 5·r4 (for the wrap-around of 2^130 ≡ 5).
    private let s1, s2, s3, s4: UInt64
    /// s, the second half of the key, as four little-endian words.
    private let pad: (UInt32, UInt32, UInt32, UInt32)
    /// The accumulator h in 26-bit limbs.
    private var h0: UInt64 = 0, h1: UInt64 = 0, h2: UInt64 = 0, h3: UInt64 = 0, h4: UInt64 = 0
    /// Bytes of a partial 16-byte block waiting for more.
    private var pending: [UInt8] = []
    /// The implementation of the block loop.
    package let kernel: ChaCha20.Kernel

    /// The length of a key (32) and of a tag (16) in bytes.
    package static let keyByteCount = 32, tagByteCount = 16
    /// The fewest blocks handed to the wide kernel at once (it computes r^2...r^4 per call).
    static let wideRun = 16

    /// An authenticator under the 32-byte one-time `key`, with ChaCha20's default kernel; throws
    /// `CryptoError.invalidLength` otherwise.
    package init(key: [UInt8]) throws(CryptoError) {
        try self.init(key: key, kernel: ChaCha20.defaultKernel)
    }

    /// An authenticator under the 32-byte one-time `key` whose block loop runs on `kernel`; throws
    /// `CryptoError.invalidLength` for another key length, `unavailableKernel` if this CPU cannot
    /// run `kernel`.
    package init(key: [UInt8], kernel: ChaCha20.Kernel) throws(CryptoError) {
        try CryptoError.check(key, count: Self.keyByteCount, what: "Poly1305 key")
        guard ChaCha20.isAvailable(kernel) else { throw .unavailableKernel(kernel.rawValue) }
        self = key.withUnsafeBytes { Poly1305(key: $0.baseAddress!, kernel: kernel) }
    }

    /// An authenticator under the 32-byte one-time key at `key`, on `kernel` (one this CPU runs).
    init(key: UnsafeRawPointer, kernel: ChaCha20.Kernel) {
        self.kernel = kernel
        func word(_ index: Int) -> UInt32 { key.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self).littleEndian }
        // r &= 0x0ffffffc0ffffffc0ffffffc0fffffff, split into 26-bit limbs.
        let t0 = UInt64(word(0)), t1 = UInt64(word(1)), t2 = UInt64(word(2)), t3 = UInt64(word(3))
        r0 = t0 & 0x3ff_ffff
        r1 = ((t0 >> 26) | (t1 << 6)) & 0x3ff_ff03
        r2 = ((t1 >> 20) | (t2 << 12)) & 0x3ff_c0ff
        r3 = ((t2 >> 14) | (t3 << 18)) & 0x3f0_3fff
        r4 = (t3 >> 8) & 0x00f_ffff
        (s1, s2, s3, s4) = (r1 * 5, r2 * 5, r3 * 5, r4 * 5)
        pad = (word(4), word(5), word(6), word(7))
    }

    /// Feeds `bytes` to the authenticator.
    ///
    /// - Complexity: O(*n*).
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var source = bytes.baseAddress, !bytes.isEmpty else { return }
        var remaining = bytes.count
        if !pending.isEmpty {
            let taken = min(remaining, 16 - pending.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: source, count: taken))
            source += taken
            remaining -= taken
            guard pending.count == 16 else { return }
            pending.withUnsafeBytes { blocks($0.baseAddress!, count: 1, final: false) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = remaining / 16
        if whole > 0 {
            blocks(source, count: whole, final: false)
            source += 16 * whole
            remaining -= 16 * whole
        }
        if remaining > 0 {
            pending.append(contentsOf: UnsafeRawBufferPointer(start: source, count: remaining))
        }
    }

    /// Feeds `bytes` to the authenticator.
    ///
    /// - Complexity: O(*n*).
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Feeds `bytes` followed by zeros up to a multiple of 16 bytes (the AEAD's padding), when
    /// everything fed so far is whole blocks (as in the AEAD); no partial block is kept.
    ///
    /// - Complexity: O(*n*).
    mutating func updatePadded(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        let whole = bytes.count / 16
        if whole > 0 { blocks(source, count: whole, final: false) }
        let rest = bytes.count - 16 * whole
        if rest > 0 {
            var last: SIMD16<UInt8> = .zero
            withUnsafeMutableBytes(of: &last) { block in
                block.baseAddress!.copyMemory(from: source + 16 * whole, byteCount: rest)
                blocks(UnsafeRawPointer(block.baseAddress!), count: 1, final: false)
            }
        }
    }

    /// The 16-byte tag of everything fed.
    ///
    /// - Complexity: O(1).
    package consuming func finalize() -> [UInt8] {
        let words = tagWords()
        return [UInt8](unsafeUninitializedCapacity: Self.tagByteCount) { buffer, count in
            Self.store(words, into: UnsafeMutableRawPointer(buffer.baseAddress!))
            count = Self.tagByteCount
        }
    }

    /// Writes the 16-byte tag of everything fed to `tag`.
    ///
    /// - Complexity: O(1).
    consuming func finalize(into tag: UnsafeMutableRawPointer) {
        Self.store(tagWords(), into: tag)
    }

    /// Writes the tag's four words little-endian to `tag`.
    private static func store(_ words: (UInt32, UInt32, UInt32, UInt32), into tag: UnsafeMutableRawPointer) {
        tag.storeBytes(of: words.0.littleEndian, toByteOffset: 0, as: UInt32.self)
        tag.storeBytes(of: words.1.littleEndian, toByteOffset: 4, as: UInt32.self)
        tag.storeBytes(of: words.2.littleEndian, toByteOffset: 8, as: UInt32.self)
        tag.storeBytes(of: words.3.littleEndian, toByteOffset: 12, as: UInt32.self)
    }

    /// The tag of everything fed, as four words.
    private consuming func tagWords() -> (UInt32, UInt32, UInt32, UInt32) {
        if !pending.isEmpty {
            // The last partial block gets its 1 byte here, not at bit 128.
            var last = pending
            last.append(1)
            last.append(contentsOf: repeatElement(0, count: 16 - last.count))
            last.withUnsafeBytes { blocks($0.baseAddress!, count: 1, final: true) }
        }
        // Fully carry h.
        var c: UInt64
        c = h1 >> 26; h1 &= 0x3ff_ffff; h2 += c
        c = h2 >> 26; h2 &= 0x3ff_ffff; h3 += c
        c = h3 >> 26; h3 &= 0x3ff_ffff; h4 += c
        c = h4 >> 26; h4 &= 0x3ff_ffff; h0 += c * 5
        c = h0 >> 26; h0 &= 0x3ff_ffff; h1 += c

        // g = h + 5 - 2^130; keep g if it is not negative (h >= p), else h, chosen by mask.
        var g0 = h0 &+ 5; c = g0 >> 26; g0 &= 0x3ff_ffff
        var g1 = h1 &+ c; c = g1 >> 26; g1 &= 0x3ff_ffff
        var g2 = h2 &+ c; c = g2 >> 26; g2 &= 0x3ff_ffff
        var g3 = h3 &+ c; c = g3 >> 26; g3 &= 0x3ff_ffff
        let g4 = h4 &+ c &- (1 << 26)
        let keepG = (g4 >> 63) &- 1          // all ones when g4 did not go negative
        let keepH = ~keepG
        g0 = (h0 & keepH) | (g0 & keepG)
        g1 = (h1 & keepH) | (g1 & keepG)
        g2 = (h2 & keepH) | (g2 & keepG)
        g3 = (h3 & keepH) | (g3 & keepG)
        let top = (h4 & keepH) | (g4 & keepG)

        // h mod 2^128 as four 32-bit words, plus s.
        var f: UInt64
        f = (g0 | g1 << 26) & 0xffff_ffff + UInt64(pad.0)
        let w0 = UInt32(truncatingIfNeeded: f)
        f = ((g1 >> 6 | g2 << 20) & 0xffff_ffff) + UInt64(pad.1) + (f >> 32)
        let w1 = UInt32(truncatingIfNeeded: f)
        f = ((g2 >> 12 | g3 << 14) & 0xffff_ffff) + UInt64(pad.2) + (f >> 32)
        let w2 = UInt32(truncatingIfNeeded: f)
        f = ((g3 >> 18 | top << 8) & 0xffff_ffff) + UInt64(pad.3) + (f >> 32)
        let w3 = UInt32(truncatingIfNeeded: f)
        return (w0, w1, w2, w3)
    }

    /// Absorbs `count` 16-byte blocks at `source`: h = (h + block + 2^128) · r mod 2^130 - 5, the
    /// 2^128 bit left out for the `final` padded block.
    private mutating func blocks(_ source: UnsafeRawPointer, count: Int, final: Bool) {
        var block = source
        var count = count
        if kernel != .portable && count >= Self.wideRun && !final {
            let wide = count & ~3
            var h = (self.h0, self.h1, self.h2, self.h3, self.h4)
            let r = (r0, r1, r2, r3, r4)
            withUnsafeMutableBytes(of: &h) { h in
                withUnsafeBytes(of: r) { r in
                    gallery_poly1305_blocks_accelerated(h.baseAddress!.assumingMemoryBound(to: UInt64.self),
                                                        r.baseAddress!.assumingMemoryBound(to: UInt64.self), block, wide)
                }
            }
            (self.h0, self.h1, self.h2, self.h3, self.h4) = h
            block += 16 * wide
            count -= wide
        }
        let hibit: UInt64 = final ? 0 : 1 << 24
        var (h0, h1, h2, h3, h4) = (self.h0, self.h1, self.h2, self.h3, self.h4)
        for _ in 0..<count {
            let t0 = UInt64(block.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian)
            let t1 = UInt64(block.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian)
            let t2 = UInt64(block.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian)
            let t3 = UInt64(block.loadUnaligned(fromByteOffset: 12, as: UInt32.self).littleEndian)
            h0 &+= t0 & 0x3ff_ffff
            h1 &+= (t0 >> 26 | t1 << 6) & 0x3ff_ffff
            h2 &+= (t1 >> 20 | t2 << 12) & 0x3ff_ffff
            h3 &+= (t2 >> 14 | t3 << 18) & 0x3ff_ffff
            h4 &+= (t3 >> 8) | hibit

            let d0 = h0 &* r0 &+ h1 &* s4 &+ h2 &* s3 &+ h3 &* s2 &+ h4 &* s1
            var d1 = h0 &* r1 &+ h1 &* r0 &+ h2 &* s4 &+ h3 &* s3 &+ h4 &* s2
            var d2 = h0 &* r2 &+ h1 &* r1 &+ h2 &* r0 &+ h3 &* s4 &+ h4 &* s3
            var d3 = h0 &* r3 &+ h1 &* r2 &+ h2 &* r1 &+ h3 &* r0 &+ h4 &* s4
            var d4 = h0 &* r4 &+ h1 &* r3 &+ h2 &* r2 &+ h3 &* r1 &+ h4 &* r0

            var c = d0 >> 26; h0 = d0 & 0x3ff_ffff
            d1 &+= c; c = d1 >> 26; h1 = d1 & 0x3ff_ffff
            d2 &+= c; c = d2 >> 26; h2 = d2 & 0x3ff_ffff
            d3 &+= c; c = d3 >> 26; h3 = d3 & 0x3ff_ffff
            d4 &+= c; c = d4 >> 26; h4 = d4 & 0x3ff_ffff
            h0 &+= c &* 5; c = h0 >> 26; h0 &= 0x3ff_ffff
            h1 &+= c
            block += 16
        }
        (self.h0, self.h1, self.h2, self.h3, self.h4) = (h0, h1, h2, h3, h4)
    }

    /// The tag of `message` under the one-time `key`.
    ///
    /// - Complexity: O(*n*).
    package static func authenticationCode(for message: [UInt8], key: [UInt8], kernel: ChaCha20.Kernel = ChaCha20.defaultKernel) throws(CryptoError) -> [UInt8] {
        var poly = try Poly1305(key: key, kernel: kernel)
        poly.update(message)
        return poly.finalize()
    }
}

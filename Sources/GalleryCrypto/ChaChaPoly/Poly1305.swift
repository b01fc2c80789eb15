/// The Poly1305 one-time authenticator of RFC 8439 (section 2.5): a 16-byte tag of a message
/// under a 32-byte one-time key (r, clamped, and s).
///
/// Arithmetic modulo 2^130 - 5 in five 26-bit limbs with 64-bit products (the "donna-32" layout).
/// **Constant time:** no branch or memory index depends on the key, the message or the
/// accumulator; the final reduction selects h or h - p with a mask. Only the (public) message
/// length steers the loops. A key must authenticate one message only: `ChaCha20Poly1305` derives
/// a fresh one per nonce.
public struct Poly1305: Sendable {
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

    /// The length of a key (32) and of a tag (16) in bytes.
    public static let keyByteCount = 32, tagByteCount = 16

    /// An authenticator under the 32-byte one-time `key`; throws `CryptoError.invalidLength` otherwise.
    public init(key: [UInt8]) throws(CryptoError) {
        try CryptoError.check(key, count: Self.keyByteCount, what: "Poly1305 key")
        func word(_ index: Int) -> UInt32 {
            UInt32(key[4 * index]) | UInt32(key[4 * index + 1]) << 8
                | UInt32(key[4 * index + 2]) << 16 | UInt32(key[4 * index + 3]) << 24
        }
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
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
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
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Feeds zeros up to the next multiple of 16 bytes fed (the AEAD's padding), if not already there.
    mutating func padToBlock() {
        if !pending.isEmpty { feedPending(final: false) }
    }

    /// Feeds the partial block waiting in `pending`, zero-padded to 16 bytes; a `final` one gets
    /// its 1 byte right after the message instead of at bit 128. Empties `pending`.
    private mutating func feedPending(final: Bool) {
        var block: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &block) { padded in
            pending.withUnsafeBytes { padded.copyMemory(from: $0) }
            if final { padded[pending.count] = 1 }
            blocks(UnsafeRawPointer(padded.baseAddress!), count: 1, final: final)
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// The 16-byte tag of everything fed.
    ///
    /// - Complexity: O(1).
    public consuming func finalize() -> [UInt8] {
        if !pending.isEmpty { feedPending(final: true) }
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
        var tag = [UInt8](repeating: 0, count: 16)
        for (index, word) in [w0, w1, w2, w3].enumerated() {
            for byte in 0..<4 { tag[4 * index + byte] = UInt8(truncatingIfNeeded: word >> (8 * UInt32(byte))) }
        }
        return tag
    }

    /// Absorbs `count` 16-byte blocks at `source`: h = (h + block + 2^128) · r mod 2^130 - 5, the
    /// 2^128 bit left out for the `final` padded block.
    private mutating func blocks(_ source: UnsafeRawPointer, count: Int, final: Bool) {
        let hibit: UInt64 = final ? 0 : 1 << 24
        var (h0, h1, h2, h3, h4) = (self.h0, self.h1, self.h2, self.h3, self.h4)
        var block = source
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
    public static func authenticationCode(for message: [UInt8], key: [UInt8]) throws(CryptoError) -> [UInt8] {
        var poly = try Poly1305(key: key)
        poly.update(message)
        return poly.finalize()
    }
}

/// One ChaCha20 block on plain `UInt32`s (RFC 8439 section 2.3): the path of every message
/// shorter than four blocks, and of each Poly1305 key, so every sealed record takes it twice.
///
/// Written out on `UInt32` rather than as `ChaChaState<UInt32>`: an optimized build specializes
/// both to the same code, but an unoptimized (debug) build runs generic code through witness
/// tables, about 25 times slower, which made sealing a heartbeat cost more than the rest of
/// handling it. The four-block path (`ChaChaState<SIMD4<UInt32>>`) stays generic: only bulk data
/// takes it.
enum ScalarChaCha {
    /// Sixteen words of state.
    typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                       UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    /// The keystream block of the input state `i`: twenty rounds, then the input added.
    static func keystream(_ i: Words) -> Words {
        var (x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15) = i
        for _ in 0..<10 {
            // Columns, then diagonals.
            mix(&x0, &x4, &x8, &x12); mix(&x1, &x5, &x9, &x13); mix(&x2, &x6, &x10, &x14); mix(&x3, &x7, &x11, &x15)
            mix(&x0, &x5, &x10, &x15); mix(&x1, &x6, &x11, &x12); mix(&x2, &x7, &x8, &x13); mix(&x3, &x4, &x9, &x14)
        }
        return (x0 &+ i.0, x1 &+ i.1, x2 &+ i.2, x3 &+ i.3, x4 &+ i.4, x5 &+ i.5, x6 &+ i.6, x7 &+ i.7,
                x8 &+ i.8, x9 &+ i.9, x10 &+ i.10, x11 &+ i.11, x12 &+ i.12, x13 &+ i.13, x14 &+ i.14, x15 &+ i.15)
    }

    /// The quarter round (RFC 8439 section 2.1), rotations as masking shifts (no generic
    /// `BinaryInteger` shift in a debug build).
    @inline(__always)
    private static func mix(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32) {
        a = a &+ b; d ^= a; d = d &<< 16 | d &>> 16
        c = c &+ d; b ^= c; b = b &<< 12 | b &>> 20
        a = a &+ b; d ^= a; d = d &<< 8 | d &>> 24
        c = c &+ d; b ^= c; b = b &<< 7 | b &>> 25
    }
}

/// The ChaCha20 block function (RFC 8439 section 2.3), one block in `UInt32`s (`ScalarChaCha`) or
/// four in `SIMD4<UInt32>` lanes.
extension ChaCha20 {
    /// "expa", "nd 3", "2-by", "te k": state words 0-3.
    static let constants: (UInt32, UInt32, UInt32, UInt32) = (0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574)

    /// XORs `length` (1...64) bytes at `input` with keystream block `counter` into `output`.
    @inline(__always)
    func xorOneBlock(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, length: Int, counter: UInt32) {
        withUnsafeBytes(of: ScalarChaCha.keystream(initialWords(counter: counter))) { words in
            // Whole words first, then the bytes of a partial word.
            let wholeWords = length / 4
            for index in 0..<wholeWords {
                let keystream = words.load(fromByteOffset: 4 * index, as: UInt32.self)
                let value = input.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self) ^ keystream.littleEndian
                output.storeBytes(of: value, toByteOffset: 4 * index, as: UInt32.self)
            }
            for index in (4 * wholeWords)..<length {
                let keystream = UInt8(truncatingIfNeeded: words.load(fromByteOffset: index & ~3, as: UInt32.self) >> (8 * UInt32(index & 3)))
                output.storeBytes(of: input.load(fromByteOffset: index, as: UInt8.self) ^ keystream, toByteOffset: index, as: UInt8.self)
            }
        }
    }

    /// XORs 256 bytes at `input` with keystream blocks `counter` ... `counter + 3` into `output`.
    @inline(__always)
    func xorFourBlocks(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, counter: UInt32) {
        var state = initialState(counter: counter) as ChaChaState<SIMD4<UInt32>>
        state.words.12 &+= SIMD4(0, 1, 2, 3)
        state.initial = state.words
        state.permuteAndAddInitial()
        withUnsafeBytes(of: state.words) { words in
            // Word i of block j is lane j of vector i: transpose while XORing.
            for block in 0..<4 {
                for index in 0..<16 {
                    let keystream = words.load(fromByteOffset: 16 * index + 4 * block, as: UInt32.self)
                    let offset = 64 * block + 4 * index
                    let value = input.loadUnaligned(fromByteOffset: offset, as: UInt32.self) ^ keystream.littleEndian
                    output.storeBytes(of: value, toByteOffset: offset, as: UInt32.self)
                }
            }
        }
    }

    /// The 16-word input state for block `counter`.
    @inline(__always)
    func initialWords(counter: UInt32) -> ScalarChaCha.Words {
        (Self.constants.0, Self.constants.1, Self.constants.2, Self.constants.3,
         key.0, key.1, key.2, key.3, key.4, key.5, key.6, key.7,
         counter, nonce.0, nonce.1, nonce.2)
    }

    /// The 16-word input state for block `counter` (every lane the same).
    @inline(__always)
    func initialState<Word: ChaChaWord>(counter: UInt32) -> ChaChaState<Word> {
        let w = initialWords(counter: counter)
        return ChaChaState(words: (
            Word(w.0), Word(w.1), Word(w.2), Word(w.3), Word(w.4), Word(w.5), Word(w.6), Word(w.7),
            Word(w.8), Word(w.9), Word(w.10), Word(w.11), Word(w.12), Word(w.13), Word(w.14), Word(w.15)
        ))
    }
}

/// Several 32-bit words of ChaCha20's state, one per block, in vector lanes (one block alone is
/// `ScalarChaCha`).
protocol ChaChaWord {
    /// Every lane `value`.
    init(_ value: UInt32)
    /// Lane-wise wrapping addition.
    static func &+ (a: Self, b: Self) -> Self
    /// Lane-wise XOR.
    static func ^ (a: Self, b: Self) -> Self
    /// Lane-wise rotation left by `count` bits (0 < count < 32).
    func rotatedLeft(_ count: UInt32) -> Self
}

extension SIMD4: ChaChaWord where Scalar == UInt32 {
    /// Every lane `value`.
    @inline(__always)
    init(_ value: UInt32) { self.init(repeating: value) }

    /// Lane-wise rotation left.
    ///
    /// Written with `&+` rather than `|`: LLVM matches the `|` form to four scalar `rol`s (SSE2 has
    /// no vector rotate), moving every lane out of the vector and back; with `&+` (the same value:
    /// the two halves share no bits) it stays `pslld`/`psrld`/`por` on the whole vector.
    @inline(__always)
    func rotatedLeft(_ count: UInt32) -> SIMD4<UInt32> { (self &<< count) &+ (self &>> (32 - count)) }
}

/// ChaCha20's 4 × 4 state of words, and the input state to add back after the rounds.
struct ChaChaState<Word: ChaChaWord> {
    /// Sixteen words.
    typealias Words = (Word, Word, Word, Word, Word, Word, Word, Word, Word, Word, Word, Word, Word, Word, Word, Word)

    /// The working state.
    var words: Words
    /// The input state.
    var initial: Words

    /// A state whose input is `words`.
    @inline(__always)
    init(words: Words) {
        self.words = words
        initial = words
    }

    /// The quarter round on a, b, c, d (RFC 8439 section 2.1).
    @inline(__always)
    static func quarterRound(_ a: inout Word, _ b: inout Word, _ c: inout Word, _ d: inout Word) {
        a = a &+ b; d = (d ^ a).rotatedLeft(16)
        c = c &+ d; b = (b ^ c).rotatedLeft(12)
        a = a &+ b; d = (d ^ a).rotatedLeft(8)
        c = c &+ d; b = (b ^ c).rotatedLeft(7)
    }

    /// Twenty rounds (ten column-and-diagonal double rounds), then the input added word by word.
    @inline(__always)
    mutating func permuteAndAddInitial() {
        var (x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15) = words
        for _ in 0..<10 {
            Self.quarterRound(&x0, &x4, &x8, &x12)
            Self.quarterRound(&x1, &x5, &x9, &x13)
            Self.quarterRound(&x2, &x6, &x10, &x14)
            Self.quarterRound(&x3, &x7, &x11, &x15)
            Self.quarterRound(&x0, &x5, &x10, &x15)
            Self.quarterRound(&x1, &x6, &x11, &x12)
            Self.quarterRound(&x2, &x7, &x8, &x13)
            Self.quarterRound(&x3, &x4, &x9, &x14)
        }
        let i = initial
        words = (x0 &+ i.0, x1 &+ i.1, x2 &+ i.2, x3 &+ i.3, x4 &+ i.4, x5 &+ i.5, x6 &+ i.6, x7 &+ i.7,
                 x8 &+ i.8, x9 &+ i.9, x10 &+ i.10, x11 &+ i.11, x12 &+ i.12, x13 &+ i.13, x14 &+ i.14, x15 &+ i.15)
    }
}

/// The ChaCha20 stream cipher of RFC 8439 (section 2.4): a 256-bit key, a 96-bit nonce and a
/// 32-bit block counter.
///
/// **Constant time:** ChaCha20 is additions, rotations and XORs of 32-bit words, with no table and
/// no branch on the key or the data. The loop count depends only on the (public) length.
///
/// Where the CPU has AVX2 (and `GALLERY_CHACHA20_PORTABLE` does not say otherwise), eight blocks are
/// computed at once in C (`Kernel.x86AVX2`, or `.x86AVX512VL` with AVX-512VL's rotate); else four at
/// once in `SIMD4<UInt32>` lanes (one block per lane), the last partial group one block at a time.
package struct ChaCha20: Sendable {
    /// The key and nonce words of the state: words 4-11 (key) and 13-15 (nonce).
    let key: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    /// The nonce words (state words 13, 14, 15).
    let nonce: (UInt32, UInt32, UInt32)
    /// The implementation that computes the keystream.
    package let kernel: Kernel

    /// The length of a key in bytes (32).
    package static let keyByteCount = 32
    /// The length of a nonce in bytes (12).
    package static let nonceByteCount = 12
    /// The length of a keystream block in bytes (64).
    package static let blockByteCount = 64

    /// A cipher with a 32-byte `key` and a 12-byte `nonce`; throws `CryptoError.invalidLength` otherwise.
    package init(key: [UInt8], nonce: [UInt8]) throws(CryptoError) {
        try CryptoError.check(key, count: Self.keyByteCount, what: "ChaCha20 key")
        try CryptoError.check(nonce, count: Self.nonceByteCount, what: "ChaCha20 nonce")
        func word(_ bytes: [UInt8], _ index: Int) -> UInt32 {
            UInt32(bytes[4 * index]) | UInt32(bytes[4 * index + 1]) << 8
                | UInt32(bytes[4 * index + 2]) << 16 | UInt32(bytes[4 * index + 3]) << 24
        }
        self.key = (word(key, 0), word(key, 1), word(key, 2), word(key, 3),
                    word(key, 4), word(key, 5), word(key, 6), word(key, 7))
        self.nonce = (word(nonce, 0), word(nonce, 1), word(nonce, 2))
        kernel = Self.defaultKernel
    }

    /// A cipher from the key and nonce as state words (a schedule kept per key), with `kernel`
    /// (which this CPU can run).
    init(key: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32), nonce: (UInt32, UInt32, UInt32), kernel: Kernel) {
        self.key = key
        self.nonce = nonce
        self.kernel = kernel
    }

    /// The same cipher computed by `kernel`; nil if this CPU cannot run it.
    package func using(_ kernel: Kernel) -> ChaCha20? {
        Self.isAvailable(kernel) ? ChaCha20(key: key, nonce: nonce, kernel: kernel) : nil
    }

    /// The 64-byte keystream block number `counter` (RFC 8439 section 2.3).
    ///
    /// - Complexity: O(1).
    package func block(counter: UInt32) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.blockByteCount) { buffer, count in
            let zeros = [UInt8](repeating: 0, count: Self.blockByteCount)
            zeros.withUnsafeBytes { input in
                xor(input, into: UnsafeMutableRawPointer(buffer.baseAddress!), counter: counter)
            }
            count = Self.blockByteCount
        }
    }

    /// `bytes` XORed with the keystream from block `counter` on (encryption and decryption alike).
    ///
    /// Throws `CryptoError.messageTooLong` if the message would run the 32-bit counter past 2^32 - 1.
    /// - Complexity: O(*n*).
    package func encrypt(_ bytes: [UInt8], counter: UInt32) throws(CryptoError) -> [UInt8] {
        try Self.checkLength(bytes.count, counter: counter)
        return [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            bytes.withUnsafeBytes { input in
                if let base = buffer.baseAddress { xor(input, into: UnsafeMutableRawPointer(base), counter: counter) }
            }
            count = bytes.count
        }
    }

    /// The longest message XORed one block at a time even when a wide kernel is there (two blocks).
    static let shortMessageByteCount = 2 * blockByteCount

    /// Throws unless `length` bytes fit the counter range from `counter` (at most 2^32 - counter blocks).
    static func checkLength(_ length: Int, counter: UInt32) throws(CryptoError) {
        let blocks = (UInt64(length) + 63) / 64
        guard blocks <= (UInt64(1) << 32) - UInt64(counter) else { throw .messageTooLong(length: length) }
    }

    /// Writes `input` XOR keystream (from block `counter`) to `output` (`input.count` bytes; may be
    /// the same memory as `input`). The caller has checked the counter range.
    ///
    /// - Complexity: O(*n*).
    func xor(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, counter: UInt32) {
        guard let source = input.baseAddress else { return }
        // A wide kernel computes eight blocks of keystream whatever the length: a message of one
        // or two blocks (a heartbeat, an ack, each Poly1305 key) is cheaper a block at a time.
        if kernel != .portable && input.count > Self.shortMessageByteCount {
            xorAccelerated(source, into: output, length: input.count, counter: counter)
            return
        }
        var offset = 0
        var counter = counter
        let count = input.count
        while count - offset >= 4 * Self.blockByteCount {
            xorFourBlocks(source + offset, output + offset, counter: counter)
            offset += 4 * Self.blockByteCount
            counter &+= 4
        }
        while offset < count {
            let length = min(Self.blockByteCount, count - offset)
            xorOneBlock(source + offset, output + offset, length: length, counter: counter)
            offset += length
            counter &+= 1
        }
    }
}

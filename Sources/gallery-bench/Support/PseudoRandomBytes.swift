import GallerySimulation

/// Seeded pseudo-random bytes for benchmark data.
enum PseudoRandomBytes {
    /// Fills `bytes` from a `SeededGenerator`, word by word where it can.
    static func fill(_ bytes: UnsafeMutableRawBufferPointer, seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var offset = 0
        while offset + 8 <= bytes.count {
            bytes.storeBytes(of: random.next(), toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            bytes[offset] = UInt8(truncatingIfNeeded: random.next())
            offset += 1
        }
    }
}

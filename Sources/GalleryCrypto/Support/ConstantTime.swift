/// Comparisons whose running time does not depend on the bytes compared.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes.
    ///
    /// Constant time in the contents: every byte pair is XORed and ORed into one accumulator, with
    /// no early exit and no branch on the data. Not constant time in the lengths (different lengths
    /// return false at once; lengths are public everywhere this is used: tags and MACs).
    /// - Complexity: O(*n*).
    package static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) {
            difference |= x ^ y
        }
        return isZero(difference)
    }

    /// Whether `a` and `b` hold the same bytes: `equals` on raw memory (a tag checked in place),
    /// indexed directly rather than through the generic collection code that an unoptimized
    /// build runs for every byte.
    ///
    /// - Complexity: O(*n*).
    package static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count {
            difference |= a[index] ^ b[index]
        }
        return isZero(difference)
    }

    /// Whether every byte of `bytes` is zero, without a branch on the bytes.
    ///
    /// - Complexity: O(*n*).
    package static func isAllZero(_ bytes: some Collection<UInt8>) -> Bool {
        var accumulator: UInt8 = 0
        for byte in bytes {
            accumulator |= byte
        }
        return isZero(accumulator)
    }

    /// 1 if `value` is 0, else 0, computed arithmetically (the final comparison is on a public result).
    @inline(__always)
    private static func isZero(_ value: UInt8) -> Bool {
        // (value - 1) has bit 8 set only when value == 0 (as a 32-bit subtraction).
        (UInt32(value) &- 1) >> 8 & 1 == 1
    }
}

/// A growable byte buffer for the binary encodings: bytes, varints, fixed-width little-endian
/// integers and length-prefixed UTF-8 strings (see `ByteSink`).
package struct ByteWriter: ByteSink, Sendable {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    package mutating func bytes(_ value: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: value)
    }

    package mutating func append(_ other: some Sequence<UInt8>) {
        bytes.append(contentsOf: other)
    }

    /// Drops the bytes written after the first `count`.
    package mutating func truncate(to count: Int) {
        bytes.removeLast(bytes.count - count)
    }

    /// Appends what `body` writes, at most `maxCount` bytes, in one step rather than byte by byte.
    package mutating func append(atMost maxCount: Int, _ body: (inout RawByteWriter) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxCount) { buffer in
            var writer = RawByteWriter(base: buffer.baseAddress!, capacity: maxCount)
            body(&writer)
            bytes.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress!, count: writer.count))
        }
    }

    /// Appends fixed-width integers little-endian, back to back (one copy on little-endian hosts).
    ///
    /// - Complexity: O(n) for n integers.
    package mutating func integers<T: FixedWidthInteger>(_ values: [T]) {
        #if _endian(little)
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
        #else
        for value in values { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        #endif
    }
}

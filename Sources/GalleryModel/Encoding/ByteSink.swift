/// Where the op encoding writes: a growable `ByteWriter`, or a `RawByteWriter` over reserved space.
package protocol ByteSink {
    mutating func byte(_ value: UInt8)
    mutating func bytes(_ value: UnsafeRawBufferPointer)
}

extension ByteSink {
    /// An unsigned LEB128 varint: 7 bits per byte, low bits first, high bit set on all but the last.
    @inline(__always)
    package mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            byte(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        byte(UInt8(rest))
    }

    /// A signed integer as a zigzag varint (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...).
    package mutating func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Two bytes, little-endian.
    package mutating func fixed16(_ value: UInt16) {
        withUnsafeBytes(of: value.littleEndian) { bytes($0) }
    }

    /// Four bytes, little-endian.
    package mutating func fixed32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes($0) }
    }

    /// Eight bytes, little-endian.
    @inline(__always)
    package mutating func fixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes($0) }
    }

    /// A varint byte count, then the UTF-8 bytes.
    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes(UnsafeRawBufferPointer(utf8))
        }
    }
}

/// Writes into space reserved beforehand, without bounds or uniqueness checks per byte.
package struct RawByteWriter: ByteSink {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Bytes written so far.
    package private(set) var count = 0

    package init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    @inline(__always)
    package mutating func byte(_ value: UInt8) {
        precondition(count < capacity, "encoded size bound exceeded")
        base[count] = value
        count += 1
    }

    @inline(__always)
    package mutating func bytes(_ value: UnsafeRawBufferPointer) {
        precondition(count + value.count <= capacity, "encoded size bound exceeded")
        if let source = value.baseAddress {
            UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: value.count)
        }
        count += value.count
    }
}

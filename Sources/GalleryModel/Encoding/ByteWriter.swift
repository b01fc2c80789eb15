/// Appends the binary building blocks of the op encoding: bytes, LEB128 varints, fixed-width
/// little-endian integers and length-prefixed UTF-8 strings.
package struct ByteWriter: Sendable {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    /// An unsigned LEB128 varint: 7 bits per byte, low bits first, high bit set on all but the last.
    package mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed integer as a zigzag varint (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...).
    package mutating func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Eight bytes, little-endian.
    package mutating func fixed64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// A varint byte count, then the UTF-8 bytes.
    package mutating func string(_ value: String) {
        varint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    package mutating func append(_ other: some Sequence<UInt8>) {
        bytes.append(contentsOf: other)
    }
}

/// Reads what `ByteWriter` writes, refusing truncated or overlong input with a `DecodingError`
/// and never allocating more than the input could describe.
package struct ByteReader: Sendable {
    private let bytes: [UInt8]
    /// The offset of the next byte to read.
    package private(set) var offset: Int

    package init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Bytes left to read.
    package var remaining: Int { bytes.count - offset }

    package var isAtEnd: Bool { offset == bytes.count }

    package mutating func byte() throws(DecodingError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// An unsigned LEB128 varint of at most 10 bytes that fits in 64 bits, in its shortest form.
    package mutating func varint() throws(DecodingError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            if shift == 63 && next > 1 { throw .invalidVarint }
            value |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 {
                if next == 0 && shift > 0 { throw .invalidVarint }
                return value
            }
            shift += 7
            if shift > 63 { throw .invalidVarint }
        }
    }

    /// A varint that must not exceed `limit`, as an `Int`.
    package mutating func count(limit: Int) throws(DecodingError) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw .limitExceeded }
        return Int(value)
    }

    package mutating func zigzag() throws(DecodingError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    package mutating func fixed64() throws(DecodingError) -> UInt64 {
        try fixed(8)
    }

    package mutating func fixed32() throws(DecodingError) -> UInt32 {
        UInt32(try fixed(4))
    }

    package mutating func fixed16() throws(DecodingError) -> UInt16 {
        UInt16(try fixed(2))
    }

    /// A little-endian unsigned integer of `width` bytes.
    @inline(__always)
    private mutating func fixed(_ width: Int) throws(DecodingError) -> UInt64 {
        guard remaining >= width else { throw .truncated }
        // One unaligned load rather than a byte at a time; the width is a constant at every call.
        let value = bytes.withUnsafeBytes { raw -> UInt64 in
            switch width {
            case 8: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            case 4: UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            default: UInt64(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
            }
        }
        offset += width
        return value
    }

    /// A length-prefixed UTF-8 string of at most `limit` bytes.
    package mutating func string(limit: Int = 65_535) throws(DecodingError) -> String {
        let length = try count(limit: limit)
        guard length <= remaining else { throw .truncated }
        let slice = bytes[offset..<(offset + length)]
        offset += length
        let text = slice.withUnsafeBufferPointer { utf8 -> String? in
            // ASCII, the common case, needs no validation beyond this scan.
            if utf8.allSatisfy({ $0 < 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
            return String(validating: utf8, as: UTF8.self)
        }
        guard let text else { throw .invalidUTF8 }
        return text
    }

    /// The next `length` bytes.
    package mutating func bytes(_ length: Int) throws(DecodingError) -> ArraySlice<UInt8> {
        guard length >= 0, length <= remaining else { throw .truncated }
        defer { offset += length }
        return bytes[offset..<(offset + length)]
    }

    /// `count` fixed-width little-endian integers, as written by `ByteWriter.integers(_:)`.
    ///
    /// - Complexity: O(n) for n integers (one copy on little-endian hosts).
    package mutating func integers<T: FixedWidthInteger>(_ count: Int, as type: T.Type = T.self) throws(DecodingError) -> [T] {
        let width = MemoryLayout<T>.size
        guard count >= 0, count <= remaining / width else { throw .truncated }
        let start = offset
        offset += count * width
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            bytes.withUnsafeBytes { source in
                let raw = UnsafeMutableRawBufferPointer(buffer)
                raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + count * width)]))
            }
            #if _endian(big)
            for index in 0..<count { buffer[index] = T(littleEndian: buffer[index]) }
            #endif
            initialized = count
        }
    }
}

/// CRC-32 (IEEE 802.3: reflected, polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF), the
/// checksum of zlib's `crc32`, gzip and PNG, fed incrementally.
///
/// Computed eight bytes at a time with slicing-by-8 tables (8 KiB, built once on first use).
package struct CRC32: Sendable {
    /// The running register, before the final inversion.
    private var register: UInt32 = 0xFFFF_FFFF

    /// A checksum of no bytes (value 0).
    package init() {}

    /// The CRC-32 of the bytes fed so far.
    package var value: UInt32 { ~register }

    /// Feeds `bytes` to the checksum.
    ///
    /// - Complexity: O(*n*) in the number of bytes, without allocation.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var source = bytes.baseAddress, !bytes.isEmpty else { return }
        var remaining = bytes.count
        var crc = register
        Self.tables.withUnsafeBufferPointer { tables in
            let t = tables.baseAddress!
            while remaining >= 8 {
                let word = source.loadUnaligned(as: UInt64.self).littleEndian ^ UInt64(crc)
                crc = t[7 &* 256 &+ Int(truncatingIfNeeded: word) & 0xff]
                    ^ t[6 &* 256 &+ Int(truncatingIfNeeded: word &>> 8) & 0xff]
                    ^ t[5 &* 256 &+ Int(truncatingIfNeeded: word &>> 16) & 0xff]
                    ^ t[4 &* 256 &+ Int(truncatingIfNeeded: word &>> 24) & 0xff]
                    ^ t[3 &* 256 &+ Int(truncatingIfNeeded: word &>> 32) & 0xff]
                    ^ t[2 &* 256 &+ Int(truncatingIfNeeded: word &>> 40) & 0xff]
                    ^ t[1 &* 256 &+ Int(truncatingIfNeeded: word &>> 48) & 0xff]
                    ^ t[Int(truncatingIfNeeded: word &>> 56)]
                source += 8
                remaining &-= 8
            }
            while remaining > 0 {
                let byte = source.load(as: UInt8.self)
                crc = t[Int(truncatingIfNeeded: crc ^ UInt32(byte)) & 0xff] ^ (crc &>> 8)
                source += 1
                remaining &-= 1
            }
        }
        register = crc
    }

    /// Feeds `bytes` to the checksum: `[UInt8]`, `ArraySlice<UInt8>`, `Data`, ...
    ///
    /// Contiguous collections are read in place; other sequences byte by byte.
    /// - Complexity: O(*n*) in the number of bytes.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if done != nil { return }
        var crc = register
        Self.tables.withUnsafeBufferPointer { t in
            for byte in bytes {
                crc = t[Int(truncatingIfNeeded: crc ^ UInt32(byte)) & 0xff] ^ (crc &>> 8)
            }
        }
        register = crc
    }

    /// The CRC-32 of the bytes in a buffer.
    ///
    /// - Complexity: O(*n*) in the number of bytes, without allocation.
    package static func checksum(of bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// The CRC-32 of `bytes`.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        bytes.withUnsafeBytes { crc.update($0) }
        return crc.value
    }

    /// Eight 256-entry tables, one after another: table 0 is the classic byte-at-a-time table, and
    /// entry *i* of table *k* is the register contribution of byte *i* followed by *k* zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
            tables[index] = crc
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(slice - 1) * 256 + index]
                tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xff)]
            }
        }
        return tables
    }()
}

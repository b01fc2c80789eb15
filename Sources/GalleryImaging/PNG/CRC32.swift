/// The CRC-32 of ISO 3309 / ITU-T V.42 that PNG puts after every chunk (polynomial 0xEDB88320, reflected).
package enum CRC32 {
    /// Eight tables for slicing-by-8: eight bytes a step instead of one.
    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            tables[0][index] = value
        }
        for index in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[slice - 1][index]
                tables[slice][index] = tables[0][Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()

    /// The CRC-32 of `bytes`, continuing from `start` (0 for a fresh checksum).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, start: UInt32 = 0) -> UInt32 {
        var crc = ~start
        let t = tables
        var index = 0
        let count = bytes.count
        while count - index >= 8 {
            let low = UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
                | UInt32(bytes[index + 3]) << 24
            let word = crc ^ low
            crc = t[7][Int(word & 0xFF)] ^ t[6][Int(word >> 8 & 0xFF)] ^ t[5][Int(word >> 16 & 0xFF)] ^ t[4][Int(word >> 24)]
                ^ t[3][Int(bytes[index + 4])] ^ t[2][Int(bytes[index + 5])] ^ t[1][Int(bytes[index + 6])]
                ^ t[0][Int(bytes[index + 7])]
            index += 8
        }
        while index < count {
            crc = t[0][Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
            index += 1
        }
        return ~crc
    }
}

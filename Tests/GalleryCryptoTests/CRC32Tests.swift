import Foundation
import GalleryCrypto
import Testing

/// CRC-32 against zlib's `crc32` (constants computed once with Python's `zlib.crc32`).
@Suite("CRC-32")
struct CRC32Tests {
    /// `count` bytes of a fixed pattern, `(i * 31 + 7) mod 256`.
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    @Test("The check value and the empty input")
    func checkValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        #expect(CRC32().value == 0)
    }

    @Test("Text against zlib", arguments: [
        ("a", UInt32(0xE8B7_BE43)),
        ("The quick brown fox jumps over the lazy dog", 0x414F_A339),
    ])
    func text(_ text: String, expected: UInt32) {
        #expect(CRC32.checksum(Array(text.utf8)) == expected)
    }

    @Test("Patterns against zlib, around the 8-byte stride", arguments: [
        (1, UInt32(0x4C66_7A2E)), (7, 0x3E48_3922), (8, 0xA756_0428), (9, 0xCA12_FEFE),
        (15, 0x8F77_FABB), (16, 0x0636_A895), (17, 0x71B8_D951), (1000, 0x8902_161E), (65537, 0x97A6_5D31),
    ])
    func patterns(length: Int, expected: UInt32) {
        #expect(CRC32.checksum(Self.pattern(length)) == expected)
    }

    @Test("Bytes 0...255 and a million 'a' against zlib")
    func longer() {
        #expect(CRC32.checksum(Array(0...255)) == 0x2905_8C73)
        #expect(CRC32.checksum([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)) == 0xDC25_BFBC)
    }

    @Test("Updates split at every offset, and other feeds, equal the one-shot checksum")
    func incremental() {
        let message = Self.pattern(200)
        let oneShot = CRC32.checksum(message)
        for split in 0...message.count {
            var crc = CRC32()
            message[..<split].withUnsafeBytes { crc.update($0) }
            message[split...].withUnsafeBytes { crc.update($0) }
            #expect(crc.value == oneShot, "split at \(split)")
        }
        var bytewise = CRC32()
        for byte in message { bytewise.update(CollectionOfOne(byte)) }
        #expect(bytewise.value == oneShot)
        var lazy = CRC32()
        lazy.update(message.lazy.map { $0 })
        #expect(lazy.value == oneShot)
        var data = CRC32()
        data.update(Data(message))
        #expect(data.value == oneShot)
    }
}

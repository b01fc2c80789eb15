import Foundation
import GalleryCrypto
import Testing

/// SHA-256 against the FIPS 180-4 / NIST examples, padding edges, and incremental feeding.
@Suite("SHA-256")
struct SHA256Tests {
    /// `count` bytes of a fixed pattern, `(i * 31 + 7) mod 256`.
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    @Test("NIST examples", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func nistExamples(message: String, expected: String) {
        #expect(SHA256.hex(SHA256.hash(Array(message.utf8))) == expected)
        #expect(SHA256.hex(SHA256.hash(Data(message.utf8))) == expected)
        var hasher = SHA256()
        hasher.update(message.utf8)
        #expect(SHA256.hex(hasher.finalize()) == expected)
    }

    @Test("One million 'a', at once and in uneven pieces")
    func millionA() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hex(SHA256.hash(message)) == expected)
        var hasher = SHA256()
        var start = 0
        var piece = 1
        while start < message.count {
            let end = min(start + piece, message.count)
            hasher.update(message[start..<end])
            start = end
            piece = piece * 3 % 1_001 + 1
        }
        #expect(SHA256.hex(hasher.finalize()) == expected)
    }

    @Test("Padding edges", arguments: [
        (55, "8aa994584139d128848eeebc4e815639ba5ab6e6e39574195a63ac4f14f7c43b"),
        (56, "ad574708f75c044c9b85de64cb568ee7711ff4f36448c6242f053ba8f6cc2b63"),
        (63, "280ed3e8ff1df845b2e7dfe6ac6cee817bef20e783cc65abc41b818b4d2fe076"),
        (64, "c6ab9724ade5b6a7a1edfffb12f3aa9181351355af8fd08c919952ad211339dd"),
        (65, "788367c73c7ddf4c53f65e68cc0d943e6227ab55b0e78ba63ace822b1c6301c0"),
        (119, "3d610547d68216dedf7435a4fb6260353911f6b3fd3f18805ddb8be285d726fe"),
        (120, "1f80156a804cb7862ad113e8200e9d74499723e7c7854d5f48776d3148e09656"),
        (128, "cc548ca2dec1f6fe4f58b2e27aa9c7521607df1130d140b55a4dad0665302356"),
        (1000, "5097e7d587352f5097062ae679f37bda5802d9f875aba14c8cb4d1a188ada179"),
    ])
    func paddingEdges(length: Int, expected: String) {
        // Expected digests computed once with Python's hashlib.
        #expect(SHA256.hex(SHA256.hash(Self.pattern(length))) == expected)
    }

    @Test("Two updates split at every offset of 200 bytes equal the one-shot hash")
    func splitAtEveryOffset() {
        let message = Self.pattern(200)
        let oneShot = SHA256.hash(message)
        #expect(SHA256.hex(oneShot) == "44cae5223d431caed4a9e32271d6abf17c3f2f4abac45fcdb48a99fcc6072a09")
        for split in 0...message.count {
            var hasher = SHA256()
            message[..<split].withUnsafeBytes { hasher.update($0) }
            message[split...].withUnsafeBytes { hasher.update($0) }
            #expect(hasher.finalize() == oneShot, "split at \(split)")
        }
    }

    @Test("Byte-at-a-time and non-contiguous sequences equal the one-shot hash")
    func otherFeeds() {
        let message = Self.pattern(777)
        let oneShot = SHA256.hash(message)
        var bytewise = SHA256()
        for byte in message { bytewise.update(CollectionOfOne(byte)) }
        #expect(bytewise.finalize() == oneShot)
        var lazy = SHA256()
        lazy.update(message.lazy.map { $0 })
        #expect(lazy.finalize() == oneShot)
        var empty = SHA256()
        empty.update(UnsafeRawBufferPointer(start: nil, count: 0))
        empty.update([UInt8]())
        #expect(SHA256.hex(empty.finalize()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("Hex is lowercase, two digits per byte")
    func hex() {
        #expect(SHA256.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(SHA256.hex([UInt8]()) == "")
        #expect(SHA256.hash([]).count == SHA256.byteCount)
    }
}

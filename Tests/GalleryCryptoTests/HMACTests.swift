import GalleryCrypto
import Testing

/// HMAC-SHA256 against RFC 4231's test cases, and constant-time verification.
@Suite("HMAC-SHA256")
struct HMACTests {
    /// `text` as bytes.
    static func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// RFC 4231 test cases 1-7: key, data, expected code (case 5 truncated to 128 bits).
    static let cases: [(key: [UInt8], data: [UInt8], code: String)] = [
        ([UInt8](repeating: 0x0b, count: 20), utf8("Hi There"),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (utf8("Jefe"), utf8("what do ya want for nothing?"),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (Array(1...25), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        ([UInt8](repeating: 0x0c, count: 20), utf8("Test With Truncation"),
         "a3b6167473100ee06e0c796c2955552b"),
        ([UInt8](repeating: 0xaa, count: 131), utf8("Test Using Larger Than Block-Size Key - Hash Key First"),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ([UInt8](repeating: 0xaa, count: 131),
         utf8("This is a test using a larger than block-size key and a larger than block-size data. "
              + "The key needs to be hashed before being used by the HMAC algorithm."),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test("RFC 4231 test cases 1-7", arguments: 0..<7)
    func rfc4231(index: Int) {
        let (key, data, expected) = Self.cases[index]
        let code = HMACSHA256.authenticationCode(for: data, key: key)
        #expect(code.count == HMACSHA256.byteCount)
        // Case 5 gives only the first 128 bits.
        #expect(SHA256.hex(code.prefix(expected.count / 2)) == expected, "case \(index + 1)")
        #expect(HMACSHA256.isValid(code, for: data, key: key))
    }

    @Test("A changed bit, a truncated code, another key or message are not valid")
    func rejects() {
        let key = Self.utf8("secret")
        let message = Self.utf8("GallerySync")
        let code = HMACSHA256.authenticationCode(for: message, key: key)
        for index in code.indices {
            var forged = code
            forged[index] ^= 0x01
            #expect(!HMACSHA256.isValid(forged, for: message, key: key))
        }
        #expect(!HMACSHA256.isValid(Array(code.prefix(16)), for: message, key: key))
        #expect(!HMACSHA256.isValid([], for: message, key: key))
        #expect(!HMACSHA256.isValid(code + [0], for: message, key: key))
        #expect(!HMACSHA256.isValid(code, for: message, key: Self.utf8("secret!")))
        #expect(!HMACSHA256.isValid(code, for: Self.utf8("GallerySynd"), key: key))
    }

    @Test("Keys of exactly one block are used as they are, longer ones hashed first")
    func keyLengths() {
        let message = Self.utf8("m")
        let block = [UInt8](repeating: 0x61, count: 64)
        let long = [UInt8](repeating: 0x61, count: 65)
        // A key longer than a block is equivalent to its digest used as the key.
        #expect(HMACSHA256.authenticationCode(for: message, key: long)
                == HMACSHA256.authenticationCode(for: message, key: SHA256.hash(long)))
        #expect(HMACSHA256.authenticationCode(for: message, key: block)
                != HMACSHA256.authenticationCode(for: message, key: SHA256.hash(block)))
        // Zero padding: a short key equals itself padded with zeros to the block size.
        #expect(HMACSHA256.authenticationCode(for: message, key: [1, 2, 3])
                == HMACSHA256.authenticationCode(for: message, key: [1, 2, 3] + [UInt8](repeating: 0, count: 61)))
    }
}

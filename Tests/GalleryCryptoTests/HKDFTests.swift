import GalleryCrypto
import Testing

/// HKDF-SHA256 against RFC 5869's test cases 1-3 (PRK and OKM), and its length limit.
@Suite("HKDF-SHA256 (RFC 5869)")
struct HKDFTests {
    /// Test cases 1-3 of RFC 5869 appendix A: IKM, salt, info, L, PRK, OKM.
    static let cases: [(ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int, prk: String, okm: String)] = [
        ([UInt8](repeating: 0x0b, count: 22), Array(0x00...0x0c), Array(0xf0...0xf9), 42,
         "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
         "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        (Array(0x00...0x4f), Array(0x60...0xaf), Array(0xb0...0xff), 82,
         "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
         "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        ([UInt8](repeating: 0x0b, count: 22), [], [], 42,
         "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
         "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    @Test("RFC 5869 test cases 1-3", arguments: 0..<3)
    func rfc5869(index: Int) throws {
        let c = Self.cases[index]
        let prk = HKDF.extract(salt: c.salt, inputKeyMaterial: c.ikm)
        #expect(hex(prk) == c.prk)
        #expect(hex(try HKDF.expand(pseudorandomKey: prk, info: c.info, byteCount: c.length)) == c.okm)
        #expect(hex(try HKDF.deriveKey(inputKeyMaterial: c.ikm, salt: c.salt, info: c.info, byteCount: c.length)) == c.okm)
    }

    @Test("Expand: 8,160 bytes at most; more or a negative length throws")
    func limits() throws {
        let prk = HKDF.extract(salt: [], inputKeyMaterial: [1])
        #expect(try HKDF.expand(pseudorandomKey: prk, info: [], byteCount: 8160).count == 8160)
        #expect(try HKDF.expand(pseudorandomKey: prk, info: [], byteCount: 0).isEmpty)
        #expect(throws: CryptoError.derivedKeyTooLong(requested: 8161)) { try HKDF.expand(pseudorandomKey: prk, info: [], byteCount: 8161) }
        #expect(throws: CryptoError.self) { try HKDF.expand(pseudorandomKey: prk, info: [], byteCount: -1) }
    }
}

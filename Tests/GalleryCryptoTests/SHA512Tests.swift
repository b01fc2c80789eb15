import Foundation
@testable import GalleryCrypto
import Testing

/// SHA-512 against FIPS 180-4's examples (one block, two blocks, the padding edge cases) and the
/// million-'a' vector, and incremental feeding against one-shot hashing.
@Suite("SHA-512 (FIPS 180-4)")
struct SHA512Tests {
    @Test("FIPS 180-4 examples and the empty message", arguments: [
        ("", "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        ("abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
    ])
    func vectors(message: String, digest: String) {
        #expect(hex(SHA512.hash(Array(message.utf8))) == digest)
    }

    @Test("One million 'a', fed in uneven pieces")
    func million() {
        var hasher = SHA512()
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 999)
        var remaining = 1_000_000
        while remaining > 0 {
            let count = min(remaining, piece.count)
            hasher.update(Array(piece[0..<count]))
            remaining -= count
        }
        #expect(hex(hasher.finalize()) == "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b")
    }

    @Test("Split anywhere, the digest is the one-shot digest (1,000 bytes, checked against Python's hashlib)")
    func incremental() {
        let message = (0..<1000).map { UInt8($0 % 251) }
        let expected = "5096498d96f50f9a137c4db5b8b0cd38383ad55350fb5a98805fedc31fa1262f1f0cf4d6f12d7ecd8dedd933a4c9126344fe22e937a8ad35fdeae1e876ae698b"
        #expect(hex(SHA512.hash(message)) == expected)
        for split in [0, 1, 111, 112, 127, 128, 129, 255, 256, 500, 999, 1000] {
            var hasher = SHA512()
            hasher.update(Array(message[0..<split]))
            hasher.update(Array(message[split...]))
            #expect(hex(hasher.finalize()) == expected, "split at \(split)")
        }
    }
}

import GalleryCrypto

/// A golden transcript of `Noise_XXpsk3_25519_ChaChaPoly_SHA256` with fixed keys, for protocol.md.
///
/// Every key is SHA-256 of a label (so a reader can re-derive them); payloads are empty. It was
/// produced by an independent implementation (Python, on OpenSSL's X25519, ChaCha20-Poly1305 and
/// SHA-256 through the `cryptography` package, itself checked against the cacophony XXpsk3 vector)
/// and `NoiseHandshakeTests` checks that this module produces the same bytes.
///
/// The prologue and PSK here are placeholders: how GallerySync derives the PSK from the space secret
/// and what it binds into the prologue belongs to the integration (GalleryWire/Secure).
///
/// ```
/// protocol name        Noise_XXpsk3_25519_ChaChaPoly_SHA256
/// prologue             "GallerySync golden transcript"
///                      47616c6c65727953796e6320676f6c64656e207472616e736372697074
/// psk                  SHA-256("GallerySync golden pre-shared key")
///                      1ca4785356c1f2941a79b80484295602777c1b9c8cc7ba7015960e35c6e41114
/// initiator static     SHA-256("GallerySync golden initiator static")
///                      3f41d6447a5c24a171e4bd6aec8b597c1373de1ab3278d2e546b2fb10faf3955
///            public    8d188e2ab3b902aab4d212cc0df93af9ac12e5e74237994623c908c1b831784f
/// initiator ephemeral  SHA-256("GallerySync golden initiator ephemeral")
///                      87968f2dd3554075209f782322ff093e0dce6d1ea197091090040a740700f197
///            public    936b3fa880395d40e81aa0dc24225bfb65908c98802d63ecf36c8aa4308bc735
/// responder static     SHA-256("GallerySync golden responder static")
///                      fba359f42d68d06612a3bfa5086ec434d038f77c6531ec129a2c15512694dfeb
///            public    a8f7bbf0be1c430f38d6851238c765840e81282c8fc1551657131c5da56e0c03
/// responder ephemeral  SHA-256("GallerySync golden responder ephemeral")
///                      70ec92e4b13a7fb904e8089001f4b1801aec3a086b25ffbb88d2589e55a15ee4
///            public    ebc47784a7a6481ae41bfa1e7e865fd07062eca0fa9bb3fe0172c0e0ebf44455
///
/// -> e                 (48 bytes: e.public, then the empty payload's 16-byte tag)
///   936b3fa880395d40e81aa0dc24225bfb65908c98802d63ecf36c8aa4308bc735
///   1fdd7010a6d019f8903997d0d13dd218
/// <- e, ee, s, es      (96 bytes: e.public, s.public sealed (48), the payload's tag)
///   ebc47784a7a6481ae41bfa1e7e865fd07062eca0fa9bb3fe0172c0e0ebf44455
///   8e6418c217b2f39bffdd4b1d13cff1abc2ff855422fee086555ae84f4d87e0f249de05f156751e6c4f2b470a2be98422
///   8cf1c29ff3b9f5693387755bbe408c7a
/// -> s, se, psk        (64 bytes: s.public sealed (48), the payload's tag)
///   8be7ff51cddcac3e12383b46230a5cad526a5ad4e04b28e59d5df1e9eafa93b365a234ff9974d3204af1198dc9283e0e
///   b1f72d352c4469088fbeb1a2242ec73a
/// handshake hash       f8c6a21cb8ef929edaa788a98c703c117060336841379fb560fd7a8a2e96d22a
///
/// first record initiator -> responder, "ping":  939e005e83ada6860dda8c763e43dc30dc5e6bc8
/// first record responder -> initiator, "pong":  e468899d8478c1648a26869a833f5d04a8405407
/// ```
enum NoiseGoldenTranscript {
    /// The prologue bytes.
    static let prologue = Array("GallerySync golden transcript".utf8)
    /// SHA-256 of the label "GallerySync golden " + `name`.
    static func key(_ name: String) -> [UInt8] {
        SHA256.hash(Array("GallerySync golden \(name)".utf8))
    }
    /// The three handshake messages.
    static let messages = [
        "936b3fa880395d40e81aa0dc24225bfb65908c98802d63ecf36c8aa4308bc7351fdd7010a6d019f8903997d0d13dd218",
        "ebc47784a7a6481ae41bfa1e7e865fd07062eca0fa9bb3fe0172c0e0ebf444558e6418c217b2f39bffdd4b1d13cff1ab"
            + "c2ff855422fee086555ae84f4d87e0f249de05f156751e6c4f2b470a2be984228cf1c29ff3b9f5693387755bbe408c7a",
        "8be7ff51cddcac3e12383b46230a5cad526a5ad4e04b28e59d5df1e9eafa93b365a234ff9974d3204af1198dc9283e0e"
            + "b1f72d352c4469088fbeb1a2242ec73a",
    ]
    /// The handshake hash.
    static let handshakeHash = "f8c6a21cb8ef929edaa788a98c703c117060336841379fb560fd7a8a2e96d22a"
    /// The first record each way: "ping" from the initiator, "pong" from the responder.
    static let ping = "939e005e83ada6860dda8c763e43dc30dc5e6bc8", pong = "e468899d8478c1648a26869a833f5d04a8405407"
}

/// Noise test vectors from the cacophony suite (Haskell implementation; `vectors/cacophony.txt` as
/// vendored by snow and other Noise libraries), for the two patterns of this module: handshake
/// messages 1-3, then three transport messages, alternating initiator and responder.
enum NoiseVectors {
    /// One exchanged message: its payload and the bytes on the wire.
    struct Message: Sendable { var payload, ciphertext: String }
    /// One vector: the protocol name, keys, prologue, PSK, handshake hash and messages.
    struct Vector: Sendable {
        var protocolName, prologue: String
        var presharedKey: String?
        var initiatorStatic, initiatorEphemeral, responderStatic, responderEphemeral, handshakeHash: String
        var messages: [Message]
    }

    /// Noise_XX_25519_ChaChaPoly_SHA256.
    static let xx = Vector(
        protocolName: "Noise_XX_25519_ChaChaPoly_SHA256", prologue: "4a6f686e2047616c74",
        presharedKey: nil,
        initiatorStatic: "e61ef9919cde45dd5f82166404bd08e38bceb5dfdfded0a34c8df7ed542214d1",
        initiatorEphemeral: "893e28b9dc6ca8d611ab664754b8ceb7bac5117349a4439a6b0569da977c464a",
        responderStatic: "4a3acbfdb163dec651dfa3194dece676d437029c62a408b4c5ea9114246e4893",
        responderEphemeral: "bbdb4cdbd309f1a1f2e1456967fe288cadd6f712d65dc7b7793d5e63da6b375b",
        handshakeHash: "c8e5f64e846193be2a834104c2a009868d6c9f3bd3c186299888b488b2f1f58e",
        messages: [
            Message(payload: "4c756477696720766f6e204d69736573",
                    ciphertext: "ca35def5ae56cec33dc2036731ab14896bc4c75dbb07a61f879f8e3afa4c79444c756477696720766f6e204d69736573"),
            Message(payload: "4d757272617920526f746862617264",
                    ciphertext: "95ebc60d2b1fa672c1f46a8aa265ef51bfe38e7ccb39ec5be34069f14480884381cbad1f276e038c48378ffce2b65285e08d6b68aaa3629a5a8639392490e5b9bd5269c2f1e4f488ed8831161f19b7815528f8982ffe09be9b5c412f8a0db50f8814c7194e83f23dbd8d162c9326ad"),
            Message(payload: "462e20412e20486179656b",
                    ciphertext: "c7195ffacac1307ff99046f219750fc47693e23c3cb08b89c2af808b444850a80ae475b9df0f169ae80a89be0865b57f58c9fea0d4ec82a286427402f113e4b6ae769a1d95941d49b25030"),
            Message(payload: "4361726c204d656e676572",
                    ciphertext: "96763ed773f8e47bb3712f0e29b3060ffc956ffc146cee53d5e1df"),
            Message(payload: "4a65616e2d426170746973746520536179",
                    ciphertext: "3e40f15f6f3a46ae446b253bf8b1d9ffb6ed9b174d272328ff91a7e2e5c79c07f5"),
            Message(payload: "457567656e2042f6686d20766f6e2042617765726b",
                    ciphertext: "eb3f3515110702e047a6c9da4478b6ead94873c11c0f2d710ddb3f09fce024b3a58502ae3f"),
        ]
    )

    /// Noise_XXpsk3_25519_ChaChaPoly_SHA256.
    static let xxPSK3 = Vector(
        protocolName: "Noise_XXpsk3_25519_ChaChaPoly_SHA256", prologue: "4a6f686e2047616c74",
        presharedKey: "54686973206973206d7920417573747269616e20706572737065637469766521",
        initiatorStatic: "e61ef9919cde45dd5f82166404bd08e38bceb5dfdfded0a34c8df7ed542214d1",
        initiatorEphemeral: "893e28b9dc6ca8d611ab664754b8ceb7bac5117349a4439a6b0569da977c464a",
        responderStatic: "4a3acbfdb163dec651dfa3194dece676d437029c62a408b4c5ea9114246e4893",
        responderEphemeral: "bbdb4cdbd309f1a1f2e1456967fe288cadd6f712d65dc7b7793d5e63da6b375b",
        handshakeHash: "a477edf6a131bbdb54707f6ea30eab6cd935d9b560f0e5fd1f053a95a99669fb",
        messages: [
            Message(payload: "4c756477696720766f6e204d69736573",
                    ciphertext: "ca35def5ae56cec33dc2036731ab14896bc4c75dbb07a61f879f8e3afa4c7944c9f5ff0e8079630cb7e270c20bbf480821b77a384a645c71a2fd9b3db1c16a5f"),
            Message(payload: "4d757272617920526f746862617264",
                    ciphertext: "95ebc60d2b1fa672c1f46a8aa265ef51bfe38e7ccb39ec5be34069f144808843b123def17f71e6ae8e57e0e1dec5949c5f7415c6f33517398747d821a06dc23ad430aa1fd7381d46195c378a819fd574425462cbb2d4ca339e738a0b7001dc91423fbf55a99af0c6f1df21012ceb2f"),
            Message(payload: "462e20412e20486179656b",
                    ciphertext: "52187316111b118d4c060364f7b975dc0809b2590779aff2d63113c564f11744493384db7bf32d5ae6686df6ab06d508d2e07caaf1d6afc010b978735fc78900e71ae1d314130d042e729a"),
            Message(payload: "4361726c204d656e676572",
                    ciphertext: "eaedc672d4c21e0e2955758756fb98f194c4e90d5deb5b6cf30b27"),
            Message(payload: "4a65616e2d426170746973746520536179",
                    ciphertext: "522d543c5fe799d09a3d9da7ff54d0dc03c8af1dc7751d2ff708339d2290943e98"),
            Message(payload: "457567656e2042f6686d20766f6e2042617765726b",
                    ciphertext: "7d4e2c3873eef6a213b04e72f9df60a91666072d3544c5d96c34a09e2329b5030bee796741"),
        ]
    )

}

/// A Noise handshake pattern (spec rev. 34, section 7) this module runs: its name and, for each
/// message in order (initiator first, then alternating), its tokens.
///
/// Only the two patterns GallerySync needs are defined: `xx` (to check this code against
/// published Noise_XX vectors) and `xxPSK3`, the one the node is to use. Neither has pre-messages.
package struct NoiseHandshakePattern: Sendable, Equatable {
    /// A token of a message pattern.
    enum Token: Sendable, Equatable {
        case e, s, ee, es, se, ss, psk
    }

    /// The pattern's name as it appears in the protocol name ("XX", "XXpsk3").
    package let name: String
    /// The tokens of each message.
    let messages: [[Token]]

    /// Whether a psk token occurs (then `e` also does MixKey, spec section 9.2).
    var usesPresharedKey: Bool { messages.contains { $0.contains(.psk) } }

    /// XX (spec 7.5): mutual static keys, each sent encrypted.
    /// ```
    /// -> e
    /// <- e, ee, s, es
    /// -> s, se
    /// ```
    package static let xx = NoiseHandshakePattern(name: "XX", messages: [[.e], [.e, .ee, .s, .es], [.s, .se]])

    /// XXpsk3 (spec 9.4): XX with the pre-shared key mixed in at the end of the third message.
    /// ```
    /// -> e
    /// <- e, ee, s, es
    /// -> s, se, psk
    /// ```
    package static let xxPSK3 = NoiseHandshakePattern(name: "XXpsk3", messages: [[.e], [.e, .ee, .s, .es], [.s, .se, .psk]])

    /// The full protocol name with this module's functions, e.g. "Noise_XXpsk3_25519_ChaChaPoly_SHA256".
    package var protocolName: String { "Noise_\(name)_25519_ChaChaPoly_SHA256" }
}

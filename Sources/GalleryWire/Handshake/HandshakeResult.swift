import GalleryCrypto

/// What a finished Noise handshake leaves: the version run, the peer's proved static key, the
/// handshake hash, and one cipher state per direction for the record layer (`RecordSealer`,
/// `RecordOpener`). The peer's `identity` frame, the first sealed frame, completes the picture.
package struct HandshakeResult: Sendable {
    /// The protocol version of the connection.
    package var version: UInt16
    /// The peer's static public key, proved by the handshake.
    package var remoteKey: X25519.PublicKey
    /// Noise's h after the last message: the same on both sides, unique to the connection.
    package var handshakeHash: [UInt8]
    /// Seals what this side sends.
    package var sending: NoiseCipherState
    /// Opens what the peer sends.
    package var receiving: NoiseCipherState
    /// Which PSK the client proved (always `.space` for a client).
    package var authority = HandshakeAuthority.space

    init(version: UInt16, transport: NoiseTransport) {
        self.version = version
        remoteKey = transport.remoteStaticKey
        handshakeHash = transport.handshakeHash
        (sending, receiving) = transport.detachCipherStates()
    }
}

extension HandshakeFailure {
    /// The failure for a Noise error while reading handshake message `index` (0-based).
    static func noise(_ error: NoiseError, message index: Int) -> HandshakeFailure {
        switch error {
        case .authenticationFailed:
            // Message 3 is the first that depends on the PSK: failing it means another secret.
            switch index {
            case 0: HandshakeFailure(.authFailed, "Noise message 1 failed authentication: the hello was changed on the way")
            case 2: HandshakeFailure(.authFailed, "the client does not know the space's secret (Noise message 3 failed authentication)")
            default: HandshakeFailure(.authFailed, error.errorDescription ?? "\(error)")
            }
        default:
            HandshakeFailure(.protocolError, error.errorDescription ?? "\(error)")
        }
    }
}

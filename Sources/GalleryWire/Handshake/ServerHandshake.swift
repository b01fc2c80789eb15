import GalleryCrypto

/// The accepting side of the handshake (protocol.md, "Handshake"): (`hello`, message 1) ->
/// message 2 -> (message 3), then the sealed channel.
///
/// Nothing but these messages is accepted before message 3 has proved the space's secret; a
/// `hello` without a version in common is refused with `unsupported_version`.
package struct ServerHandshake: Sendable {
    /// What to do after a received message.
    package enum Step: Sendable {
        /// Nothing to send yet (the `hello` was taken).
        case wait
        /// Send this message and wait for the next one.
        case send(Message)
        /// The client proved the secret: every later frame is sealed with `result`'s keys.
        case finish(HandshakeResult)
    }

    private let settings: HandshakeSettings
    private let fixedEphemeralKey: X25519.PrivateKey?
    private var version: UInt16?
    private var noise: NoiseHandshakeState?
    private var messagesRead = 0

    /// Creates the server side.
    package init(settings: HandshakeSettings) {
        self.init(settings: settings, ephemeralKey: nil)
    }

    /// As the public `init`, with a fixed ephemeral key (golden transcripts only).
    package init(settings: HandshakeSettings, ephemeralKey: X25519.PrivateKey?) {
        self.settings = settings
        fixedEphemeralKey = ephemeralKey
    }

    /// Takes the client's next message.
    package mutating func receive(_ message: Message) throws(HandshakeFailure) -> Step {
        switch message {
        case .hello(let hello) where version == nil:
            guard let common = hello.versions.filter(settings.versions.contains).max() else {
                throw HandshakeFailure(.unsupportedVersion,
                    "no common protocol version: the client offers \(hello.versions), this node speaks \(settings.versions)")
            }
            version = common
            do {
                noise = try NoiseHandshakeState(
                    role: .responder, pattern: HandshakeSettings.pattern,
                    prologue: HandshakeSettings.prologue(version: common, hello: message.frame),
                    staticKey: settings.staticKey, presharedKey: settings.presharedKey, ephemeralKey: fixedEphemeralKey ?? settings.makeEphemeralKey())
            } catch {
                throw HandshakeFailure(.internalError, error.errorDescription ?? "\(error)")
            }
            return .wait
        case .noiseHandshake(let bytes) where noise != nil:
            guard var state = noise, let version else { throw HandshakeFailure(.protocolError, "no handshake") }
            let index = messagesRead * 2
            try HandshakeSettings.checkLength(of: bytes, message: index)
            var authority = HandshakeAuthority.space
            do {
                if index == 2, let keyring = settings.keyring {
                    (state, authority) = try Self.readLast(bytes, state: state, keys: keyring.acceptedKeys)
                } else {
                    _ = try state.readMessage(bytes)
                }
            } catch {
                throw HandshakeFailure.noise(error, message: index)
            }
            messagesRead += 1
            if index == 0 {
                do {
                    let second = try state.writeMessage()
                    noise = state
                    return .send(.noiseHandshake(second))
                } catch {
                    throw HandshakeFailure(.protocolError, error.errorDescription ?? "\(error)")
                }
            }
            noise = nil
            do {
                var result = HandshakeResult(version: version, transport: try state.transport())
                result.authority = authority
                if result.remoteKey == settings.staticKey.publicKey {
                    throw HandshakeFailure(.duplicateConnection, "connected to itself")
                }
                return .finish(result)
            } catch let failure as HandshakeFailure {
                throw failure
            } catch {
                throw HandshakeFailure(.protocolError, "\(error)")
            }
        case .error(let code, let reason):
            throw HandshakeFailure(code, reason)
        default:
            throw HandshakeFailure(.protocolError, "\(message.type) before the handshake completed")
        }
    }

    /// Reads message 3 under each accepted key in turn (each on a copy of the state): the first
    /// that opens it says what the client proved. Fails as the first key failed when none opens.
    private static func readLast(_ bytes: [UInt8], state: NoiseHandshakeState, keys: [(HandshakeAuthority, [UInt8])]) throws(NoiseError) -> (NoiseHandshakeState, HandshakeAuthority) {
        var firstError: NoiseError?
        for (authority, key) in keys {
            var attempt = state
            attempt.replacePresharedKey(key)
            do {
                _ = try attempt.readMessage(bytes)
                return (attempt, authority)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        var last = state
        _ = try last.readMessage(bytes)
        throw firstError ?? .authenticationFailed(handshakeMessage: 2)
    }
}

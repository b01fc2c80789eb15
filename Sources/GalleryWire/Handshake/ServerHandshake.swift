/// The accepting side of the handshake: (`hello`) -> `welcome` -> (`auth`) -> `authOK`.
///
/// Nothing but these messages is accepted before the client's proof has been checked.
public struct ServerHandshake: Sendable {
    /// What to do after a received message.
    public enum Step: Hashable, Sendable {
        /// Send this message and wait for the next one.
        case send(Message)
        /// Send this message; the client is authenticated.
        case sendAndFinish(Message, PeerIdentity)
    }

    private let settings: HandshakeSettings
    private let nonce: [UInt8]
    private var transcript: HandshakeTranscript?
    private var peer: PeerIdentity?

    /// Creates the server side; `nonce` must be fresh random bytes.
    public init(settings: HandshakeSettings, nonce: [UInt8] = HandshakeSettings.makeNonce()) {
        self.settings = settings
        self.nonce = nonce
    }

    /// Takes the client's next message.
    public mutating func receive(_ message: Message) throws(HandshakeFailure) -> Step {
        switch (message, transcript) {
        case (.hello(let hello), nil):
            guard let version = hello.versions.filter(settings.versions.contains).max() else {
                throw HandshakeFailure(.unsupportedVersion, "no common protocol version (server speaks \(settings.versions))")
            }
            guard hello.replica != settings.replica else {
                throw HandshakeFailure(.duplicateConnection, "connected to itself")
            }
            transcript = HandshakeTranscript(
                version: version, clientNonce: hello.nonce, serverNonce: nonce,
                clientReplica: hello.replica, serverReplica: settings.replica)
            peer = PeerIdentity(
                replica: hello.replica, name: hello.name, version: version,
                maximumFrameSize: min(max(hello.maximumFrameSize, FrameLimits.minimum), FrameLimits.maximum))
            return .send(.welcome(Welcome(
                version: version, replica: settings.replica, nonce: nonce,
                maximumFrameSize: settings.maximumFrameSize, name: settings.name)))
        case (.auth(let proof), let transcript?):
            guard transcript.verify(proof, from: .client, secret: settings.secret), let peer else {
                throw HandshakeFailure(.authFailed, "wrong secret")
            }
            return .sendAndFinish(.authOK(proof: transcript.proof(for: .server, secret: settings.secret)), peer)
        case (.error(let code, let reason), _):
            throw HandshakeFailure(code, reason)
        default:
            throw HandshakeFailure(.protocolError, "\(message.type) before authentication")
        }
    }
}

/// The connecting side of the handshake: `hello` -> (`welcome`) -> `auth` -> (`authOK`).
///
/// Pure: it turns received messages into messages to send, so that tests drive it without sockets.
public struct ClientHandshake: Sendable {
    /// What to do after a received message.
    public enum Step: Hashable, Sendable {
        /// Send this message and wait for the next one.
        case send(Message)
        /// Authenticated: the peer proved the secret.
        case done(PeerIdentity)
    }

    private let settings: HandshakeSettings
    private let nonce: [UInt8]
    private var transcript: HandshakeTranscript?
    private var peer: PeerIdentity?

    /// Creates the client side; `nonce` must be fresh random bytes (see `HandshakeSettings.makeNonce`).
    public init(settings: HandshakeSettings, nonce: [UInt8] = HandshakeSettings.makeNonce()) {
        self.settings = settings
        self.nonce = nonce
    }

    /// The first message: `hello`.
    public var hello: Message {
        .hello(Hello(
            versions: settings.versions, replica: settings.replica, nonce: nonce,
            maximumFrameSize: settings.maximumFrameSize, name: settings.name))
    }

    /// Takes the server's next message.
    public mutating func receive(_ message: Message) throws(HandshakeFailure) -> Step {
        switch (message, transcript) {
        case (.welcome(let welcome), nil):
            guard settings.versions.contains(welcome.version) else {
                throw HandshakeFailure(.unsupportedVersion, "server selected version \(welcome.version)")
            }
            guard welcome.replica != settings.replica else {
                throw HandshakeFailure(.duplicateConnection, "connected to itself")
            }
            let transcript = HandshakeTranscript(
                version: welcome.version, clientNonce: nonce, serverNonce: welcome.nonce,
                clientReplica: settings.replica, serverReplica: welcome.replica)
            self.transcript = transcript
            peer = PeerIdentity(
                replica: welcome.replica, name: welcome.name, version: welcome.version,
                maximumFrameSize: min(max(welcome.maximumFrameSize, FrameLimits.minimum), FrameLimits.maximum))
            return .send(.auth(proof: transcript.proof(for: .client, secret: settings.secret)))
        case (.authOK(let proof), let transcript?):
            guard transcript.verify(proof, from: .server, secret: settings.secret), let peer else {
                throw HandshakeFailure(.authFailed, "the server does not know the secret")
            }
            return .done(peer)
        case (.error(let code, let reason), _):
            throw HandshakeFailure(code, reason)
        default:
            throw HandshakeFailure(.protocolError, "\(message.type) during the handshake")
        }
    }
}

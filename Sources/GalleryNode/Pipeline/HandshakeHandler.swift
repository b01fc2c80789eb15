import GalleryIO
import GalleryWire

/// The handshake (protocol.md, "Handshake"): a client sends `hello` when the channel becomes
/// active; either side answers the peer's handshake messages until the peer has proved the
/// space's secret. Then it switches the codec to checksummed frames, tells the handlers after it
/// `HandshakeCompleted`, and passes every later frame through unchanged.
///
/// A failed handshake, or an `error` frame from the peer, is reported with `fireErrorCaught`.
final class HandshakeHandler: ChannelHandler {
    private enum Side {
        case client(ClientHandshake)
        case server(ServerHandshake)
    }

    private var side: Side
    private let maximumPayload: Int
    /// The authenticated peer, nil until the handshake is over.
    private(set) var peer: PeerIdentity?

    /// A client (`dialing`) or server handshake with `settings`.
    init(dialing: Bool, settings: HandshakeSettings) {
        side = dialing ? .client(ClientHandshake(settings: settings)) : .server(ServerHandshake(settings: settings))
        maximumPayload = Int(settings.maximumFrameSize)
    }

    func channelActive(context: ChannelHandlerContext) {
        if case .client(let handshake) = side { send(handshake.hello, context: context) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, _ data: Any) {
        guard peer == nil, let frame = data as? Frame else {
            context.fireChannelRead(data)
            return
        }
        // A frame of a type this version does not know is skipped when its sender marked it so.
        if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { return }
        do {
            let message = try Message(frame: frame)
            if case .error(let code, let text) = message { throw PeerReportedError(code: code, message: text) }
            var identity: PeerIdentity?
            switch side {
            case .client(var handshake):
                switch try handshake.receive(message) {
                case .send(let reply): send(reply, context: context)
                case .done(let peer): identity = peer
                }
                side = .client(handshake)
            case .server(var handshake):
                switch try handshake.receive(message) {
                case .send(let reply): send(reply, context: context)
                case .sendAndFinish(let reply, let peer):
                    send(reply, context: context)
                    identity = peer
                }
                side = .server(handshake)
            }
            if let identity {
                peer = identity
                context.write(StartChecksums(maximumPayload: maximumPayload))
                context.fireUserInboundEventTriggered(HandshakeCompleted(peer: identity))
            }
        } catch {
            context.fireErrorCaught(error)
        }
    }

    private func send(_ message: Message, context: ChannelHandlerContext) {
        context.write(OutboundFrame(frame: message.frame, priority: message.type.priority))
    }
}

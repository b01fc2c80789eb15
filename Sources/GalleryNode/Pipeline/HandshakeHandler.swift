import GalleryIO
import GalleryWire

/// The cleartext part of the handshake (protocol.md, "Handshake"): a client sends `hello` and
/// Noise message 1 when the channel becomes active; either side answers the peer's handshake
/// messages until the Noise handshake is over. Then it tells the handlers after it
/// `SecureChannelReady` (the keys), and passes every later frame through unchanged.
///
/// A failed handshake, or an `error` frame from the peer, is reported with `fireErrorCaught`.
final class HandshakeHandler: ChannelHandler {
    private enum Side {
        case client(ClientHandshake)
        case server(ServerHandshake)
    }

    private var side: Side
    /// Whether the Noise handshake is over: later frames belong to the record layer.
    private var finished = false

    /// A client (`dialing`, expecting the node `expectedNode` when given) or server handshake.
    init(dialing: Bool, settings: HandshakeSettings, expectedNode: NodeID? = nil) {
        side = dialing ? .client(ClientHandshake(settings: settings, expectedNode: expectedNode)) : .server(ServerHandshake(settings: settings))
    }

    func channelActive(context: ChannelHandlerContext) {
        if case .client(var handshake) = side {
            do {
                for message in try handshake.start() { send(message, context: context) }
                side = .client(handshake)
            } catch {
                context.fireErrorCaught(error)
            }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, _ data: Any) {
        guard !finished, let frame = data as? Frame else {
            context.fireChannelRead(data)
            return
        }
        // A frame of a type this version does not know is skipped when its sender marked it so.
        if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { return }
        do {
            // 0x02-0x04: version 2's welcome, auth, auth_ok: a version 2 node answered.
            if (0x02...0x04).contains(frame.type) {
                throw HandshakeFailure(.unsupportedVersion, "the peer speaks protocol version 2 (HMAC challenge, nothing encrypted); this node speaks only version 3")
            }
            let message = try Message(frame: frame)
            if case .error(let code, let text) = message { throw PeerReportedError(code: code, message: text) }
            var result: HandshakeResult?
            switch side {
            case .client(var handshake):
                switch try handshake.receive(message) {
                case .finish(let reply, let outcome):
                    send(reply, context: context)
                    result = outcome
                }
                side = .client(handshake)
            case .server(var handshake):
                switch try handshake.receive(message) {
                case .wait: break
                case .send(let reply): send(reply, context: context)
                case .finish(let outcome): result = outcome
                }
                side = .server(handshake)
            }
            if let result {
                finished = true
                context.fireUserInboundEventTriggered(SecureChannelReady(result: result))
            }
        } catch {
            context.fireErrorCaught(error)
        }
    }

    private func send(_ message: Message, context: ChannelHandlerContext) {
        context.write(OutboundFrame(frame: message.frame, priority: message.type.priority))
    }
}

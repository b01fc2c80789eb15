import GalleryIO
import GalleryModel
import GalleryWire

/// Frames to messages after the handshake, and messages to frames: the last handler before the
/// node's connection.
///
/// Inbound, an `error` frame ends the connection (`PeerReportedError`), a handshake message after
/// authentication is a protocol error, and every other message is passed on; `ops_compact` frames
/// are decoded with the tables of the peer's direction, which only this handler holds (frames
/// arrive here in the order sent). Outbound, a `Message` becomes an `OutboundFrame` at its type's
/// priority.
final class MessageHandler: ChannelHandler {
    /// The replica and gallery tables of the peer's `ops_compact` frames (empty at first).
    private var compactTables = CompactOpTables()

    init() {}

    func channelRead(context: ChannelHandlerContext, _ data: Any) {
        guard let frame = data as? Frame else {
            context.fireChannelRead(data)
            return
        }
        if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { return }
        do {
            let message = try Message(frame: frame, compactTables: &compactTables)
            switch message {
            case .error(let code, let text):
                throw PeerReportedError(code: code, message: text)
            case .hello, .noiseHandshake, .record, .identity:
                throw WireError.unexpected("\(message.type) after authentication")
            default:
                context.fireChannelRead(message)
            }
        } catch {
            context.fireErrorCaught(error)
        }
    }

    func write(context: ChannelHandlerContext, _ data: Any) {
        if let message = data as? Message {
            context.write(OutboundFrame(frame: message.frame, priority: message.type.priority))
        } else {
            context.write(data)
        }
    }
}

import GalleryIO
import GalleryWire

/// Bytes to frames and frames to the peer's outbox: the head of a peer pipeline.
///
/// Inbound, it decodes frames within the size limit (the handshake's small limit until
/// `StartRecords`, then a record's 65,535 bytes: the frames inside records are cut by
/// `SecureChannelHandler`); a bad frame is reported with `fireErrorCaught` and nothing after it is
/// decoded. Outbound, it queues `OutboundFrame`s in the `PeerOutbox` (which encodes them, in
/// sealed records once `StartRecords` gave it the sealer), and asks the channel to flush.
final class FrameCodecHandler: ChannelHandler {
    private var decoder = FrameDecoder()
    let outbox: PeerOutbox
    private var failed = false

    init(outbox: PeerOutbox) {
        self.outbox = outbox
    }

    func channelRead(context: ChannelHandlerContext, _ data: Any) {
        guard let bytes = data as? [UInt8], !failed else { return }
        decoder.append(bytes)
        do {
            while let frame = try decoder.next() {
                // Frames after a close (an error sent or received) are not handled.
                if outbox.isClosing { return }
                context.fireChannelRead(frame)
            }
        } catch {
            failed = true
            context.fireErrorCaught(error)
        }
    }

    func write(context: ChannelHandlerContext, _ data: Any) {
        switch data {
        case let outbound as OutboundFrame:
            if case .queued(true) = outbox.push(outbound.frame, priority: outbound.priority, backlog: outbound.backlog) {
                context.flush()
            }
        case let start as StartRecords:
            decoder.maximumPayload = start.maximumRecord
            outbox.startSealing(start.sealer)
        default:
            context.write(data)
        }
    }
}

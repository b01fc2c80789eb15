import GalleryCrypto
import GalleryIO
import GalleryWire

/// The record layer of a peer pipeline (protocol.md, "Records"), between the handshake and the
/// messages: once `SecureChannelReady` arrives it hands the sealer to the codec (everything this
/// side sends from then on is sealed), sends this node's `identity` as the first sealed frame, and
/// opens every `record` the peer sends, passing on the frames inside.
///
/// The peer's first sealed frame must be its `identity`: then the peer is known
/// (`HandshakeCompleted`). A record that does not open (a bit flipped, a record dropped, replayed,
/// reordered or injected), an unsealed frame, or a misplaced `identity` is reported with
/// `fireErrorCaught`, and nothing after it is used: the connection closes.
final class SecureChannelHandler: ChannelHandler {
    private let settings: HandshakeSettings
    private let rekeyInterval: UInt64
    private var opener: RecordOpener?
    private var result: HandshakeResult?
    private var peer: PeerIdentity?
    private var failed = false

    /// A record layer for a node with `settings`; `rekeyInterval` records per key (both sides
    /// must use the same: tests lower it).
    init(settings: HandshakeSettings, rekeyInterval: UInt64 = RecordSealer.defaultRekeyInterval) {
        self.settings = settings
        self.rekeyInterval = rekeyInterval
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, _ event: Any) {
        guard var ready = event as? SecureChannelReady else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if !settings.sealsRecords {
            ready.result.sending = NoiseCipherState.unkeyed
            ready.result.receiving = NoiseCipherState.unkeyed
        }
        result = ready.result
        opener = RecordOpener(ready.result.receiving, maximumPayload: Int(settings.maximumFrameSize), rekeyInterval: rekeyInterval)
        context.write(StartRecords(sealer: RecordSealer(ready.result.sending, rekeyInterval: rekeyInterval),
                                   maximumRecord: RecordOpener.maximumRecord))
        let identity = Message.identity(settings.info(version: ready.result.version))
        context.write(OutboundFrame(frame: identity.frame, priority: identity.type.priority))
    }

    func channelRead(context: ChannelHandlerContext, _ data: Any) {
        guard !failed else { return }
        guard var opener, let frame = data as? Frame else {
            context.fireChannelRead(data)
            return
        }
        // Taken out while it is used, so that its buffer is not copied on write.
        self.opener = nil
        defer { self.opener = opener }
        do {
            guard frame.type == FrameType.record.rawValue else {
                // The peer refused this side's last handshake message (a wrong secret): its error
                // comes in the clear, before any record.
                if opener.count == 0, frame.knownType == .error, case .error(let code, let text) = try Message(frame: frame) {
                    throw PeerReportedError(code: code, message: text)
                }
                throw SecureChannelError.unsealedFrame(type: frame.type)
            }
            let frames = try opener.open(frame.payload)
            for inner in frames {
                guard !failed else { return }
                if peer == nil {
                    try identify(inner, context: context)
                } else if inner.knownType == .identity {
                    throw SecureChannelError.misplacedIdentity("a second identity frame")
                } else {
                    context.fireChannelRead(inner)
                }
            }
        } catch {
            failed = true
            context.fireErrorCaught(error)
        }
    }

    /// The peer's first sealed frame: its `identity`.
    private func identify(_ frame: Frame, context: ChannelHandlerContext) throws {
        guard frame.knownType == .identity, let result else {
            if frame.knownType == .error, case .error(let code, let text) = try Message(frame: frame) {
                throw PeerReportedError(code: code, message: text)
            }
            throw SecureChannelError.misplacedIdentity("the first sealed frame is of type \(frame.type), not identity")
        }
        guard case .identity(let info) = try Message(frame: frame) else { return }
        guard info.version == result.version else {
            throw HandshakeFailure(.protocolError, "the peer runs version \(info.version) on a version \(result.version) connection")
        }
        guard info.replica != settings.replica else { throw HandshakeFailure(.duplicateConnection, "connected to itself") }
        var identity = PeerIdentity(
            replica: info.replica, name: info.name, version: info.version, maximumFrameSize: info.maximumFrameSize,
            key: result.remoteKey)
        identity.authority = result.authority
        peer = identity
        context.fireUserInboundEventTriggered(HandshakeCompleted(peer: identity))
    }
}

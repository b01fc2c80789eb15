import GalleryModel

/// A decoded frame: every message of the protocol (protocol.md, "Messages").
public enum Message: Hashable, Sendable {
    case hello(Hello)
    /// One Noise handshake message (protocol.md, "Handshake").
    case noiseHandshake([UInt8])
    /// One sealed record (its ciphertext); opened by the record layer, never by `Message`'s users.
    case record([UInt8])
    /// Who the sender is: the first frame inside the sealed channel.
    case identity(PeerInfo)
    case error(code: ErrorCode, message: String)
    case heartbeat
    case syncRequest(VersionVector)
    case ops([Op])
    case caughtUp(VersionVector)
    case fetch(FetchRequest)
    case chunk(Chunk)
    case fetchError(id: UInt64, code: ErrorCode, message: String)
    case cancel(id: UInt64)
    /// A command from the command line, as JSON (protocol.md, "Control").
    case controlRequest([UInt8])
    /// The node's answer to a command, as JSON.
    case controlResponse([UInt8])

    /// The frame type that carries this message.
    public var type: FrameType {
        switch self {
        case .hello: .hello
        case .noiseHandshake: .noiseHandshake
        case .record: .record
        case .identity: .identity
        case .error: .error
        case .heartbeat: .heartbeat
        case .syncRequest: .syncRequest
        case .ops: .ops
        case .caughtUp: .caughtUp
        case .fetch: .fetch
        case .chunk: .chunk
        case .fetchError: .fetchError
        case .cancel: .cancel
        case .controlRequest: .controlRequest
        case .controlResponse: .controlResponse
        }
    }
}

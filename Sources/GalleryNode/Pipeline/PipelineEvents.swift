import GalleryWire

/// A frame on its way to the peer, with its place in the outbound priorities.
struct OutboundFrame {
    /// The frame.
    var frame: Frame
    /// Control before ops before bulk.
    var priority: FramePriority
    /// A catch-up frame: it does not count against the slow-peer limit.
    var backlog = false
}

/// Told by `SecureChannelHandler` to the handlers after it once the peer proved the secret and
/// said who it is (its sealed `identity` frame).
struct HandshakeCompleted {
    /// Who the peer is.
    var peer: PeerIdentity
}

/// Told by `HandshakeHandler` to `SecureChannelHandler` once the Noise handshake is over (this
/// side's last handshake message queued): the keys of the sealed channel.
struct SecureChannelReady {
    /// The handshake's outcome.
    var result: HandshakeResult
}

/// Written by `SecureChannelHandler` towards `FrameCodecHandler` once the handshake is over: from
/// here on every frame this side sends goes out in sealed records (the frames queued before keep
/// the plain layout), and the frames received are records of up to 65,535 bytes.
struct StartRecords {
    /// Seals what this side sends.
    var sealer: RecordSealer
    /// The largest record accepted.
    var maximumRecord: Int
}

/// The peer sent an `error` frame: the connection ends.
struct PeerReportedError: Error {
    var code: ErrorCode
    var message: String
}

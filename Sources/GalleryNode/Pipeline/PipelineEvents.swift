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

/// Told by `HandshakeHandler` to the handlers after it once the peer proved the secret.
struct HandshakeCompleted {
    /// Who the peer is.
    var peer: PeerIdentity
}

/// Written by `HandshakeHandler` towards `FrameCodecHandler` once the handshake is over: from
/// here on every frame, both ways, carries a checksum trailer, and frames may be as large as
/// this node accepts (the frames queued before keep the plain layout).
struct StartChecksums {
    /// The largest frame payload this node accepts.
    var maximumPayload: Int
}

/// The peer sent an `error` frame: the connection ends.
struct PeerReportedError: Error {
    var code: ErrorCode
    var message: String
}

/// The type byte of a frame (protocol.md, "Frame types").
package enum FrameType: UInt8, CaseIterable, Sendable {
    /// Client's cleartext opening: magic and supported versions (protocol.md, "Handshake").
    case hello = 0x01
    // 0x02-0x04 (welcome, auth, auth_ok) were version 2's HMAC challenge; version 3 refuses them.
    /// An error code and message; the sender closes the connection after it.
    case error = 0x05
    /// Keeps an idle connection alive.
    case heartbeat = 0x06
    /// One message of the Noise handshake, in the clear (its parts are encrypted by Noise itself).
    case noiseHandshake = 0x07
    /// An AEAD record: a piece of the sealed stream of frames after the handshake.
    case record = 0x08
    /// Sealed, the first frame each side sends after the handshake: version, replica, frame limit, name.
    case identity = 0x09
    /// The sender's version vector: "send me what I lack".
    case syncRequest = 0x10
    /// A batch of ops in causal order.
    case ops = 0x11
    /// The sender has sent everything it had up to the enclosed version vector.
    case caughtUp = 0x12
    /// Relay: the sender holds each listed replica's ops up to the counter (taken as what the peer
    /// holds; this version announces with `ihaveTotal`).
    case ihave = 0x13
    /// Relay: "push me ops on this link again, and send what my version vector lacks".
    case graft = 0x14
    /// Relay: "the graft is over: stop pushing me ops on this link, announce them instead".
    case prune = 0x15
    /// Version exchange: "I speak digests", "my version vector hashes to this", or "yours differs
    /// from mine: send me your `sync_request`" (sent with the ignorable flag).
    case versionDigest = 0x16
    /// Relay: where the sender stands in the relay tree (root, round, hops, parent; ignorable).
    case tree = 0x17
    /// A batch of ops in causal order, its replica IDs and gallery names by index into tables the
    /// two sides of a direction build as they go: sent only to a peer whose `features` accept it.
    case opsCompact = 0x18
    /// What the sender accepts beyond the base protocol (`Features`; sent with the ignorable flag).
    case features = 0x19
    /// Relay: the sum of the sender's version vector, announced on a lazy link (ignorable).
    case ihaveTotal = 0x1A
    /// A request for a blob's bytes by hash and offset.
    case fetch = 0x20
    /// A piece of a blob.
    case chunk = 0x21
    /// A fetch cannot be served.
    case fetchError = 0x22
    /// The requester no longer wants a fetch.
    case cancel = 0x23
    /// A request for the thumbnail of a blob by the blob's hash and the thumbnail's long edge
    /// (protocol.md, section 8.1; sent with the ignorable flag).
    case thumbnailFetch = 0x24
    /// A thumbnail, or none (empty), in answer to `thumbnailFetch` (sent with the ignorable flag).
    case thumbnail = 0x25
    /// "Which of these blobs do you hold?" (protocol.md, section 8.2; sent with the ignorable flag).
    case holdsQuery = 0x26
    /// The answer to `holdsQuery`: one bit per blob asked (sent with the ignorable flag).
    case holds = 0x27
    /// A command from the command line to the node (JSON).
    case controlRequest = 0x30
    /// The node's answer to a command (JSON).
    case controlResponse = 0x31
    /// Where the sender listens and the members it knows (sent with the ignorable flag).
    case addresses = 0x40
    /// Membership: records, joins, space keys (sent with the ignorable flag).
    case membership = 0x41

    /// Whether frames of this type go before ops and bulk bytes on a connection.
    package var priority: FramePriority {
        switch self {
        case .ops, .opsCompact, .caughtUp: .ops
        case .chunk, .thumbnail: .bulk
        default: .control
        }
    }
}

/// The outbound queue a frame waits in: control before ops before bulk bytes.
package enum FramePriority: Int, CaseIterable, Comparable, Sendable {
    case control = 0
    case ops = 1
    case bulk = 2

    package static func < (lhs: FramePriority, rhs: FramePriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

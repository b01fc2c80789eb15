import GalleryModel

/// A decoded frame: every message of the protocol (protocol.md, "Messages").
package enum Message: Hashable, Sendable {
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
    /// The same as `ops`, carried by an `ops_compact` frame: its replica IDs and gallery names are
    /// indices into the tables of the connection's direction (`CompactOpTables`). `frame` and
    /// `init(frame:)` use empty tables (the direction's first such frame); a connection keeps
    /// its tables and uses `frame(compactTables:)` and `init(frame:compactTables:)`.
    case opsCompact([Op])
    case caughtUp(VersionVector)
    /// The sender holds these ops (protocol.md, "Relay"; nodes before `ihaveTotal` sent it).
    case ihave(VersionVector)
    /// The sender lacks ops the receiver announced: push ops on this link again, and send what the
    /// version vector lacks, then `caught_up` (`origins`, when given, name the ones known missing).
    case graft(VersionVector, origins: [ReplicaID])
    /// The sender got ops of these origins again on a grafted link: the graft is over.
    case prune([ReplicaID])
    /// The periodic version exchange by digest (protocol.md, "Version exchange"; ignorable).
    case versionDigest(VersionDigest)
    /// Where the sender stands in the relay tree (protocol.md, "Relay"; ignorable).
    case tree(TreeBeacon)
    /// The sum of the sender's version vector (protocol.md, "Relay"): sent on links that do not
    /// push ops; a receiver whose own sum is smaller lacks some of the sender's ops (ignorable).
    case ihaveTotal(UInt64)
    /// What the sender accepts beyond the base protocol (ignorable): sent once, before its first
    /// `sync_request`.
    case features(Features)
    case fetch(FetchRequest)
    case chunk(Chunk)
    case fetchError(id: UInt64, code: ErrorCode, message: String)
    case cancel(id: UInt64)
    /// "Send me the thumbnail of blob `hash` whose long edge is `size`" (ignorable; protocol.md 8.1).
    case thumbnailFetch(ThumbnailName)
    /// The thumbnail asked for, or none held here (`data` empty) (ignorable).
    case thumbnail(ThumbnailName, data: [UInt8])
    /// "Which of these blobs (SHA-256, 32 bytes each) do you hold?" (ignorable; protocol.md 8.2).
    case holdsQuery(id: UInt64, hashes: [[UInt8]])
    /// The answer: bit i (least significant first) of byte i/8 set when the i-th blob is held (ignorable).
    case holds(id: UInt64, bitmap: [UInt8])
    /// A command from the command line, as JSON (protocol.md, "Control").
    case controlRequest([UInt8])
    /// The node's answer to a command, as JSON.
    case controlResponse([UInt8])
    /// Where the sender listens and what it knows of other members (ignorable).
    case addresses(AddressAnnouncement)
    /// Member records, a join's request and grant, a new space key (protocol.md, "Membership").
    case membership(MembershipMessage)

    /// The frame type that carries this message.
    package var type: FrameType {
        switch self {
        case .hello: .hello
        case .noiseHandshake: .noiseHandshake
        case .record: .record
        case .identity: .identity
        case .error: .error
        case .heartbeat: .heartbeat
        case .syncRequest: .syncRequest
        case .ops: .ops
        case .opsCompact: .opsCompact
        case .caughtUp: .caughtUp
        case .ihave: .ihave
        case .graft: .graft
        case .prune: .prune
        case .versionDigest: .versionDigest
        case .tree: .tree
        case .ihaveTotal: .ihaveTotal
        case .features: .features
        case .fetch: .fetch
        case .chunk: .chunk
        case .fetchError: .fetchError
        case .cancel: .cancel
        case .thumbnailFetch: .thumbnailFetch
        case .thumbnail: .thumbnail
        case .holdsQuery: .holdsQuery
        case .holds: .holds
        case .controlRequest: .controlRequest
        case .controlResponse: .controlResponse
        case .addresses: .addresses
        case .membership: .membership
        }
    }
}

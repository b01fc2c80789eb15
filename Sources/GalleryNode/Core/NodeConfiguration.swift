import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryWire

/// How a sync node identifies itself, whom it connects to, and its timings and limits.
package struct NodeConfiguration: Sendable {
    /// The node's name, shown to peers.
    package var name: String
    /// The space's shared secret.
    package var secret: [UInt8]
    /// The node's static X25519 key: its identity (`gallery serve` keeps it in `DIR/node.key`).
    package var staticKey: X25519.PrivateKey
    /// Where to listen for peers; nil for a node that only dials out.
    package var listen: Endpoint?
    /// Peers to connect to and stay connected to (reconnecting with backoff).
    package var peers: [Endpoint]
    /// A heartbeat is sent when nothing else was sent for this long.
    package var heartbeatInterval: Duration
    /// A peer silent for this long (or not authenticated within it) is dropped.
    package var peerTimeout: Duration
    /// Quiet liveness (protocol.md, section 10), nil for off: the node tells each peer, in its
    /// `features`, that it tolerates `quiet.peerTimeout` of silence, and to a peer that said the
    /// same it sends a heartbeat only after `quiet.heartbeatInterval` without sending anything;
    /// the kernel's TCP keep-alive finds a vanished host meanwhile. `gallery serve` turns it on.
    package var quiet: QuietLiveness?
    /// An inbound or outbound connection must complete its handshake within this long of being
    /// made, whatever it sends meanwhile.
    package var handshakeTimeout: Duration = .seconds(5)
    /// How many unauthenticated inbound connections the node holds (in total and per address).
    package var admission = AdmissionLimits()
    /// How long ops may wait in the causal buffer for a missing dependency before the node asks
    /// its live peers again with a fresh `sync_request`.
    package var gapTimeout: Duration = .milliseconds(1_500)
    /// How often the node sends a fresh `sync_request` on every caught-up session (anti-entropy):
    /// a lost frame that no later op depends on (the last ops of a burst, a `caught_up`) is asked
    /// for again within this time, without a reconnect.
    package var versionExchangeInterval: Duration = .seconds(10)
    /// Whether the periodic version exchange sends a digest of the version vector to peers that
    /// speak `version_digest` (the full vector only when the digests differ); false sends the full
    /// `sync_request` every time and ignores `version_digest` frames, as nodes before it did.
    package var versionDigests = true
    /// Whether the node sends `features` accepting `ops_compact` and sends ops in `ops_compact`
    /// frames to the peers whose `features` accept them (protocol.md, section 7, "Compact ops");
    /// false sends and asks for `ops` only, as nodes before it did (a baseline for benchmarks).
    package var compactOps = true
    /// How long ops a peer announced (`ihave`) may be missing here before the node asks that
    /// peer to push them (`graft`, protocol.md, "Relay"): the eager tree had that long to bring them.
    package var graftTimeout: Duration = .milliseconds(400)
    /// How often at most the node tells each lazy link the total it holds (`ihave_total`, when it
    /// changed; protocol.md, "Relay"): with the heartbeat's interval, the announcement goes in
    /// place of the heartbeat on an idle link. Checked on each liveness pass (a tenth of
    /// `heartbeatInterval`).
    package var announcementInterval: Duration = .seconds(1)
    /// How often the root of the relay tree starts a round of beacons (`tree`, protocol.md,
    /// "Relay"); a node that hears no new round for three times this gives its root up.
    package var beaconInterval: Duration = .seconds(10)
    /// How long at most durable ops wait to be relayed together while other writes are in flight
    /// (protocol.md, "Relay"): with nothing in flight an op goes out at once; 0 sends each durable
    /// batch as it comes.
    package var relayHold: Duration = .milliseconds(10)
    /// Whether the node relays along the relay tree with announcements on the other links
    /// (protocol.md, "Relay"); false floods every op to every live peer (a baseline for benchmarks).
    package var relayTrees = true
    /// Whether a child of the relay tree's root that withholds ops deposes it, and the mesh
    /// follows (protocol.md, "Relay", "A root that withholds"); false keeps any root (a baseline).
    package var deposesWithholdingRoot = true
    /// Whether a node whose relay parent below the root withholds ops (or passes a trickle) leaves
    /// it, and a root's child deposes a root that passes a trickle (protocol.md, "Relay", "A parent
    /// that withholds"); false keeps any parent but a silent root (a baseline).
    package var leavesLaggingParent = true
    /// Whether records are sealed (`HandshakeSettings.sealsRecords`): off only for the unsealed
    /// baseline of `gallery-bench transfer`.
    package var sealsRecords = true
    /// Delays between attempts to reach a peer that is not connected (`PeerDirectory`, `Redial`).
    package var reconnect: Backoff
    /// The largest frame payload this node accepts.
    package var maximumFrameSize: UInt32
    /// The most bytes queued for one peer before it is dropped as too slow.
    package var outboundQueueLimit: Int
    /// The most bytes of ops in one `ops` frame of a catch-up.
    package var catchUpBatchBytes: Int
    /// Where the node reports connections, failures and sync progress.
    package var log: NodeLog
    /// What its storage repaired when the node started (`StartupReport.repairs`), for `status`.
    package var repairedAtStart: [String] = []
    /// Where the node keeps image bytes, when it has a directory (`gallery serve`).
    package var blobs: (any BlobSource)?
    /// Where the node keeps the thumbnails it makes of its originals or fetches from peers
    /// (`Thumbnails/`); nil: it makes none.
    package var derived: (any DerivedBlobSource)?
    /// Which originals the node keeps (`serve --keep`): all, fetched eagerly, or those read, as a cache.
    package var keep = KeepPolicy.thumbnails
    /// The most bytes of originals fetched on demand kept under `.thumbnails` (`serve --cache-budget`); nil: no limit.
    package var cacheBudget: Int?
    /// Where the node records which originals are a cache; nil: it records none (they are kept).
    package var cacheRecords: (any OriginalCacheRecords)?
    /// Where applied ops are made durable before they are sent to any peer or acknowledged: the
    /// node's group-commit writer hands it every op waiting, in batches, off the node's loop. Nil
    /// for a node that keeps nothing (ops count as durable once applied).
    package var store: (any OpStore)?
    /// Where the node keeps its address book across restarts; nil for a node that keeps none
    /// (it still has one in memory).
    package var addressBook: (any AddressBookStore)?
    /// The addresses this node tells its peers it listens at (`addresses` frames); nil: the
    /// address it is bound to. For a node reached through a port forward, a tunnel or a relay.
    package var announce: [Endpoint]?
    /// The clock, executors and transport the node runs on: the system's clock and TCP on event
    /// loops, unless a simulation supplies its own (`NodeEnvironment`).
    package var environment = NodeEnvironment.production
    /// The salt of the node's replica ID when its ops are signed (protocol.md, "Signed ops"): the
    /// replica must then be `OpSigning.replicaID` of the space, the signing key derived from
    /// `staticKey`, and this salt. Nil: ops are neither signed nor checked (tests, simulations).
    package var replicaSalt: UInt64?
    /// The space's members, keys and invitations (`gallery invite`, `members`, `revoke`;
    /// protocol.md, "Membership"); nil: every holder of `secret` is a member, as before.
    package var membership: Membership?
    /// The node each of these addresses must answer as (a node that joined by invitation pins
    /// its inviter from the start), besides the address book's.
    package var pins: [Endpoint: NodeID] = [:]
    /// The space ID when it is not the digest of `secret` (the secret changed since the space was
    /// made: protocol.md, "Signed ops"); nil: `OpSigning.spaceID(ofSecret: secret)`.
    package var spaceID: [UInt8]?

    /// The space ID: kept across key changes.
    package var space: [UInt8] { spaceID ?? OpSigning.spaceID(ofSecret: secret) }

    package init(
        name: String, secret: [UInt8], staticKey: X25519.PrivateKey = X25519.PrivateKey(), listen: Endpoint? = Endpoint(host: "127.0.0.1", port: 0),
        peers: [Endpoint] = [], heartbeatInterval: Duration = .seconds(1), peerTimeout: Duration = .seconds(5),
        reconnect: Backoff = Backoff(), maximumFrameSize: UInt32 = FrameLimits.defaultMaximum,
        outboundQueueLimit: Int = 64 << 20, catchUpBatchBytes: Int = 1 << 20, log: NodeLog = .standardError,
        persist: (@Sendable (_ ops: [Op], _ local: Bool) throws -> Void)? = nil, blobs: (any BlobSource)? = nil,
        store: (any OpStore)? = nil
    ) {
        self.name = name
        self.secret = secret
        self.staticKey = staticKey
        self.listen = listen
        self.peers = peers
        self.heartbeatInterval = heartbeatInterval
        self.peerTimeout = peerTimeout
        self.reconnect = reconnect
        self.maximumFrameSize = maximumFrameSize
        self.outboundQueueLimit = outboundQueueLimit
        self.catchUpBatchBytes = catchUpBatchBytes
        self.log = log
        // `persist`: a closure store, for tests (called with one batch of waiting ops at a time).
        self.store = store ?? persist.map { ClosureOpStore(body: $0) }
        self.blobs = blobs
    }
}

/// A command from the command line to a running node (the JSON of a `control_request` frame).
public struct ControlRequest: Codable, Hashable, Sendable {
    /// Chosen by the client; echoed in the response.
    public var id: Int
    /// `galleries`, `new-gallery`, `list`, `add`, `move`, `delete`, `update`, `export`, `peers`,
    /// `status`, `connect`, `disconnect`, `watch`, `drag` or `cancel`.
    public var command: String
    /// The target gallery (`new-gallery`, `list`, `add`, `move`), `HOST:PORT` (`connect`), or a
    /// peer's name (`disconnect`).
    public var gallery: String?
    /// Items by ID (`counter@replica`) or `GALLERY:INDEX` (`move`, `delete`, `update`).
    public var items: [String]?
    /// Where to insert or move (`add`, `move`); absent: at the end.
    public var index: Int?
    /// URLs to add by reference (`add`).
    public var urls: [String]?
    /// Absolute paths of image files to add (`add`): the command line and the node share the
    /// machine and DIR, and the node runs as the command line's user (the control socket checks).
    public var files: [String]?
    /// A title (`add`, `update`).
    public var title: String?
    /// An aspect ratio, width / height (`add`, `update`).
    public var aspect: Double?
    /// `drag`: move the items (delete the sources once their copies are committed); else copy.
    public var move: Bool?
    /// `drag`: answer a second time when every transfer has ended.
    public var wait: Bool?
    /// `drag`: seconds a transfer may take before its placeholder is deleted.
    public var timeout: Double?
    /// When the client sent the request (seconds since 1970): a request that waited in the socket
    /// longer than the client waits for an answer (the node was paused) is refused, not carried out.
    public var sent: Double?

    public init(id: Int, command: String, gallery: String? = nil, items: [String]? = nil, index: Int? = nil,
                urls: [String]? = nil, files: [String]? = nil, title: String? = nil, aspect: Double? = nil,
                move: Bool? = nil, wait: Bool? = nil, timeout: Double? = nil, sent: Double? = nil) {
        self.id = id
        self.command = command
        self.gallery = gallery
        self.items = items
        self.index = index
        self.urls = urls
        self.files = files
        self.title = title
        self.aspect = aspect
        self.move = move
        self.wait = wait
        self.timeout = timeout
        self.sent = sent
    }
}

/// The node's answer (the JSON of a `control_response` frame).
public struct ControlResponse: Codable, Hashable, Sendable {
    /// The request's ID.
    public var id: Int
    /// Whether the command succeeded.
    public var ok: Bool
    /// A one-line reason when it did not.
    public var error: String?
    /// Galleries with their items (`list`, `galleries`: names only, empty item lists).
    public var galleries: [GalleryListing]?
    /// IDs of items made (`add`).
    public var ids: [String]?
    /// Connected peers (`peers`, `status`).
    public var peers: [PeerListing]?
    /// The node's state (`status`).
    public var status: NodeStatus?
    /// What changed (`watch`, one response per batch of changes after the first).
    public var events: [WatchEvent]?
    /// What a drop did with each dragged item (`drag`; with `wait`, a second response gives the
    /// outcomes).
    public var drops: [DropListing]?
    /// The item asked about (`export`: the command line reads its bytes from DIR's blob store
    /// itself and checks them against `hash`).
    public var item: ItemListing?

    public init(id: Int, ok: Bool, error: String? = nil, galleries: [GalleryListing]? = nil, ids: [String]? = nil,
                peers: [PeerListing]? = nil, status: NodeStatus? = nil, events: [WatchEvent]? = nil,
                drops: [DropListing]? = nil, item: ItemListing? = nil) {
        self.id = id
        self.ok = ok
        self.error = error
        self.galleries = galleries
        self.ids = ids
        self.peers = peers
        self.status = status
        self.events = events
        self.drops = drops
        self.item = item
    }
}

/// A node's state as `status --json` prints it.
public struct NodeStatus: Codable, Hashable, Sendable {
    public var name: String
    public var replica: String
    public var address: String?
    /// The version vector: the last counter applied from each replica (hex replica ID -> counter).
    public var version: [String: UInt64]
    public var ops: Int
    /// Early ops held for missing dependencies.
    public var buffered: Int
    public var peers: [PeerListing]
    /// Transfers in flight: placeholders of this node being filled.
    public var transfers: [TransferListing]
    /// Storage faults, ops missing or refused (absent from an older node's answer).
    public var health: NodeHealth?

    /// Creates a value with every field given.
    public init(
        name: String, replica: String, address: String? = nil, version: [String: UInt64], ops: Int, buffered: Int, peers: [PeerListing], transfers: [TransferListing], health: NodeHealth? = nil
    ) {
        self.name = name
        self.replica = replica
        self.address = address
        self.version = version
        self.ops = ops
        self.buffered = buffered
        self.peers = peers
        self.transfers = transfers
        self.health = health
    }
}

/// One transfer in flight as `status` shows it.
public struct TransferListing: Codable, Hashable, Sendable {
    /// The transfer's ID, which is its placeholder's item ID.
    public var transfer: String
    /// The dragged item.
    public var source: String
    public var hash: String
    /// Bytes received and verified so far.
    public var done: Int
    public var total: Int
    /// Whether the source is deleted once the placeholder is committed.
    public var move: Bool
    /// `fetching from PEER`, `waiting for a peer holding the bytes`, `verifying`, ...
    public var state: String
    /// Seconds until the placeholder is deleted if the bytes have not arrived.
    public var secondsLeft: Double

    /// Creates a value with every field given.
    public init(
        transfer: String, source: String, hash: String, done: Int, total: Int, move: Bool, state: String, secondsLeft: Double
    ) {
        self.transfer = transfer
        self.source = source
        self.hash = hash
        self.done = done
        self.total = total
        self.move = move
        self.state = state
        self.secondsLeft = secondsLeft
    }
}

/// What a drop did with one dragged item (`drag`).
public struct DropListing: Codable, Hashable, Sendable {
    /// The dragged item.
    public var source: String
    /// The item in the destination: the moved item itself, its copy, or its placeholder.
    public var item: String
    public var gallery: String
    /// Where the item stood right after the drop.
    public var index: Int
    /// `moved` or `copied` (a local drop), `placeholder` (bytes being fetched), or `committed`
    /// (a placeholder resolved at once: its bytes were here).
    public var action: String
    /// The transfer filling the placeholder (its ID is the placeholder's), if any.
    public var transfer: String?
    /// How the transfer ended (`committed` or `failed: REASON`), in the answer to `wait`.
    public var outcome: String?

    /// Creates a value with every field given.
    public init(
        source: String, item: String, gallery: String, index: Int, action: String, transfer: String? = nil, outcome: String? = nil
    ) {
        self.source = source
        self.item = item
        self.gallery = gallery
        self.index = index
        self.action = action
        self.transfer = transfer
        self.outcome = outcome
    }
}

/// One change, as `watch --json` prints it (one per line).
public struct WatchEvent: Codable, Hashable, Sendable {
    /// `galleryCreated`, `inserted`, `moved`, `deleted`, `updated`, `committed` or `progress`.
    public var event: String
    public var id: String?
    public var gallery: String?
    public var index: Int?
    public var title: String?
    public var state: String?
    public var field: String?
    /// Bytes received of a placeholder's content (`progress`).
    public var done: Int?
    /// All its bytes (`progress`).
    public var total: Int?

    public init(event: String, id: String? = nil, gallery: String? = nil, index: Int? = nil, title: String? = nil,
                state: String? = nil, field: String? = nil, done: Int? = nil, total: Int? = nil) {
        self.event = event
        self.id = id
        self.gallery = gallery
        self.index = index
        self.title = title
        self.state = state
        self.field = field
        self.done = done
        self.total = total
    }
}

/// One gallery as `list --json` prints it.
public struct GalleryListing: Codable, Hashable, Sendable {
    public var gallery: String
    public var items: [ItemListing]

    /// Creates a value with every field given.
    public init(
        gallery: String, items: [ItemListing]
    ) {
        self.gallery = gallery
        self.items = items
    }
}

/// One item as `list --json` prints it.
public struct ItemListing: Codable, Hashable, Sendable {
    public var id: String
    public var title: String?
    public var state: String
    public var hash: String?
    public var bytes: Int64?
    public var mediaType: String?
    public var aspectRatio: Double?
    public var url: String?
    /// Bytes done / total for a placeholder this node is filling; null otherwise.
    public var progress: Progress?

    /// Creates a value with every field given.
    public init(
        id: String, title: String? = nil, state: String, hash: String? = nil, bytes: Int64? = nil, mediaType: String? = nil, aspectRatio: Double? = nil, url: String? = nil, progress: Progress? = nil
    ) {
        self.id = id
        self.title = title
        self.state = state
        self.hash = hash
        self.bytes = bytes
        self.mediaType = mediaType
        self.aspectRatio = aspectRatio
        self.url = url
        self.progress = progress
    }

    /// Transfer progress of a placeholder.
    public struct Progress: Codable, Hashable, Sendable {
        public var done: Int64
        public var total: Int64

        /// Creates a value with every field given.
        public init(done: Int64, total: Int64) {
            self.done = done
            self.total = total
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, state, hash, bytes, mediaType, aspectRatio, url, progress
    }

    /// Every key is written, unset ones as null, as `list --json` documents.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(state, forKey: .state)
        try container.encode(hash, forKey: .hash)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(mediaType, forKey: .mediaType)
        try container.encode(aspectRatio, forKey: .aspectRatio)
        try container.encode(url, forKey: .url)
        try container.encode(progress, forKey: .progress)
    }
}

/// One connected peer as `peers` prints it.
public struct PeerListing: Codable, Hashable, Sendable {
    public var name: String?
    public var replica: String?
    public var address: String
    public var direction: String
    public var state: String
    /// The peer's version vector at its `caught_up`: "synced with P up to V".
    public var syncedUpTo: [String: UInt64]?

    /// Creates a value with every field given.
    public init(
        name: String? = nil, replica: String? = nil, address: String, direction: String, state: String, syncedUpTo: [String: UInt64]? = nil
    ) {
        self.name = name
        self.replica = replica
        self.address = address
        self.direction = direction
        self.state = state
        self.syncedUpTo = syncedUpTo
    }
}

/// A command from the command line to a running node (the JSON of a `control_request` frame).
public struct ControlRequest: Codable, Hashable, Sendable {
    /// Chosen by the client; echoed in the response.
    public var id: Int
    /// `galleries`, `new-gallery`, `list`, `add`, `move`, `delete`, `update` or `peers`.
    public var command: String
    /// The target gallery (`new-gallery`, `list`, `add`, `move`).
    public var gallery: String?
    /// Items by ID (`counter@replica`) or `GALLERY:INDEX` (`move`, `delete`, `update`).
    public var items: [String]?
    /// Where to insert or move (`add`, `move`); absent: at the end.
    public var index: Int?
    /// URLs to add by reference (`add`).
    public var urls: [String]?
    /// Absolute paths of image files to add (`add`), or the file to write (`export`): the command
    /// line and the node share the machine and DIR.
    public var files: [String]?
    /// A title (`add`, `update`).
    public var title: String?
    /// An aspect ratio, width / height (`add`, `update`).
    public var aspect: Double?

    public init(id: Int, command: String, gallery: String? = nil, items: [String]? = nil, index: Int? = nil,
                urls: [String]? = nil, files: [String]? = nil, title: String? = nil, aspect: Double? = nil) {
        self.id = id
        self.command = command
        self.gallery = gallery
        self.items = items
        self.index = index
        self.urls = urls
        self.files = files
        self.title = title
        self.aspect = aspect
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

    public init(id: Int, ok: Bool, error: String? = nil, galleries: [GalleryListing]? = nil, ids: [String]? = nil,
                peers: [PeerListing]? = nil, status: NodeStatus? = nil, events: [WatchEvent]? = nil) {
        self.id = id
        self.ok = ok
        self.error = error
        self.galleries = galleries
        self.ids = ids
        self.peers = peers
        self.status = status
        self.events = events
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
    /// Transfers in flight (placeholders being filled; none until drag and drop exists).
    public var transfers: [String]
}

/// One change, as `watch --json` prints it (one per line).
public struct WatchEvent: Codable, Hashable, Sendable {
    /// `galleryCreated`, `inserted`, `moved`, `deleted`, `updated` or `committed`.
    public var event: String
    public var id: String?
    public var gallery: String?
    public var index: Int?
    public var title: String?
    public var state: String?
    public var field: String?

    public init(event: String, id: String? = nil, gallery: String? = nil, index: Int? = nil, title: String? = nil,
                state: String? = nil, field: String? = nil) {
        self.event = event
        self.id = id
        self.gallery = gallery
        self.index = index
        self.title = title
        self.state = state
        self.field = field
    }
}

/// One gallery as `list --json` prints it.
public struct GalleryListing: Codable, Hashable, Sendable {
    public var gallery: String
    public var items: [ItemListing]
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
    /// Bytes done / total for a placeholder being filled (transfers come later: always null now).
    public var progress: Progress?

    /// Transfer progress of a placeholder.
    public struct Progress: Codable, Hashable, Sendable {
        public var done: Int64
        public var total: Int64
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
}

/// One change, as `watch --json` prints it (one per line).
public struct WatchEvent: Codable, Hashable, Sendable {
    /// What happened.
    public var event: WatchEventKind
    /// The item concerned.
    public var id: String?
    /// The gallery concerned.
    public var gallery: String?
    /// Where the item stands now.
    public var index: Int?
    /// The item's title.
    public var title: String?
    /// The item's state (`ready`, `placeholder`).
    public var state: String?
    /// The field updated (`updated`).
    public var field: String?
    /// Bytes received of a placeholder's content (`progress`).
    public var done: Int?
    /// All its bytes (`progress`).
    public var total: Int?

    public init(event: WatchEventKind, id: String? = nil, gallery: String? = nil, index: Int? = nil, title: String? = nil,
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

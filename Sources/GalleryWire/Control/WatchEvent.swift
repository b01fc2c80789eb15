/// One change, as `watch --json` prints it (one per line).
package struct WatchEvent: Codable, Hashable, Sendable {
    /// What happened.
    package var event: WatchEventKind
    /// The item concerned.
    package var id: String?
    /// The gallery concerned.
    package var gallery: String?
    /// Where the item stands now.
    package var index: Int?
    /// The item's title.
    package var title: String?
    /// The item's state (`ready`, `placeholder`).
    package var state: String?
    /// The field updated (`updated`).
    package var field: String?
    /// Bytes received of a placeholder's content (`progress`).
    package var done: Int?
    /// All its bytes (`progress`).
    package var total: Int?

    package init(event: WatchEventKind, id: String? = nil, gallery: String? = nil, index: Int? = nil, title: String? = nil,
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

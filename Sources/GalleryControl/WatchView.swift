import GalleryWire

/// What a `watch` client shows (`gallery watch`), kept from the node's answers (protocol.md
/// section 15): the listing of an answer that carries one (the first, or a new start after the
/// watcher fell far behind), then each batch of events applied to it. A batch lifts out every item it inserted, moved or
/// deleted, then places those that stand in a gallery shown at their indices in ascending
/// order: an index is a position after the whole batch.
///
/// The text view keeps every item in order (it redraws the gallery); `--json` keeps only which
/// gallery each item stands in, which is what choosing the events to print needs.
package struct WatchView {
    /// The gallery watched, nil for all.
    package let gallery: String?
    /// Whether the items' order and fields are kept (the text view).
    package let ordered: Bool
    /// The galleries shown, with their items when `ordered`.
    package private(set) var galleries: [GalleryListing] = []
    /// The gallery of every item shown.
    private var members: [String: String] = [:]

    package init(gallery: String?, ordered: Bool) {
        self.gallery = gallery
        self.ordered = ordered
    }

    /// Starts over from a listing.
    package mutating func start(_ listing: [GalleryListing]) {
        members = [:]
        for shown in listing {
            for item in shown.items { members[item.id] = shown.gallery }
        }
        galleries = ordered ? listing : listing.map { GalleryListing(gallery: $0.gallery, items: []) }
    }

    /// Applies one batch; returns the events `--json` prints: those of the galleries shown, and
    /// the moves and deletes of items that left the gallery watched (a move's `gallery` says
    /// where the item went).
    package mutating func apply(_ events: [WatchEvent]) -> [WatchEvent] {
        let printed = events.filter { event in
            guard let gallery else { return true }
            let held = event.id.flatMap { members[$0] } == gallery
            return event.gallery == gallery || ([.moved, .deleted, .trashed].contains(event.event) && held)
        }
        var lifted: [String: String] = [:]
        var places: [String: WatchEvent] = [:]
        var changed: [String: [WatchEvent]] = [:]
        for event in events {
            guard let id = event.id else {
                let created = event.event == .galleryCreated || event.event == .galleryRenamed
                if created, let name = event.gallery, shows(name), !galleries.contains(where: { $0.gallery == name }) {
                    galleries.append(GalleryListing(gallery: name, items: []))
                    galleries.sort { $0.gallery < $1.gallery }
                }
                if event.event == .galleryDeleted { galleries.removeAll { $0.gallery == event.gallery } }
                continue
            }
            switch event.event {
            case .inserted, .moved, .deleted, .trashed, .restored:
                if let from = members.removeValue(forKey: id) { lifted[id] = from }
                if event.event != .deleted, event.event != .trashed, event.index != nil, let to = event.gallery, shows(to) {
                    places[id] = event
                } else {
                    places.removeValue(forKey: id)
                }
            case .updated, .committed, .progress:
                changed[id, default: []].append(event)
            case .galleryCreated, .galleryRenamed, .galleryDeleted, .watching:
                break
            }
        }
        for (id, event) in places { members[id] = event.gallery }
        if ordered { rearrange(lifted: lifted, places: Array(places.values), changed: changed) }
        return printed
    }

    /// Whether the view shows gallery `name`.
    private func shows(_ name: String) -> Bool {
        gallery == nil || gallery == name
    }

    /// The text view's items after a batch: the lifted ones out, the placed ones in at their
    /// indices, the changed ones' fields set, in the order of the batch.
    private mutating func rearrange(lifted: [String: String], places: [WatchEvent], changed: [String: [WatchEvent]]) {
        var kept: [String: ItemListing] = [:]
        let arriving = Dictionary(grouping: places) { $0.gallery ?? "" }
        let touched = Set(lifted.values).union(arriving.keys)
        for position in galleries.indices {
            let name = galleries[position].gallery
            guard touched.contains(name) || !changed.isEmpty else { continue }
            var items = galleries[position].items
            if lifted.values.contains(name) {
                items.removeAll { item in
                    guard lifted[item.id] == name else { return false }
                    kept[item.id] = item
                    return true
                }
            }
            if let placed = arriving[name] {
                var merged: [ItemListing] = []
                merged.reserveCapacity(items.count + placed.count)
                var rest = items[...]
                for event in placed.sorted(by: { ($0.index ?? 0) < ($1.index ?? 0) }) {
                    while merged.count < (event.index ?? 0), let next = rest.popFirst() { merged.append(next) }
                    let id = event.id ?? ""
                    var item = kept[id] ?? ItemListing(id: id, title: nil, state: "", hash: nil, bytes: nil, mediaType: nil,
                                                       aspectRatio: nil, url: nil, progress: nil)
                    item.title = event.title
                    item.state = event.state ?? item.state
                    merged.append(item)
                }
                merged.append(contentsOf: rest)
                items = merged
            }
            for index in items.indices {
                for change in changed[items[index].id] ?? [] {
                    items[index].title = change.title
                    items[index].state = change.state ?? items[index].state
                    if change.event == .progress, let done = change.done, let total = change.total {
                        items[index].progress = ItemListing.Progress(done: Int64(done), total: Int64(total))
                    }
                    if change.event == .committed { items[index].progress = nil }
                }
            }
            galleries[position].items = items
        }
    }
}

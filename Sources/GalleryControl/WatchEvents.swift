import GalleryModel
import GalleryNode
import GalleryWire

/// Turns applied ops into the events `watch` reports, read against the replica right after them:
/// an item's `gallery` and `index` are where it stands after the whole batch (none once deleted).
/// Each event costs O(log n) for n items: the gallery is never listed.
package enum WatchEvents {
    /// The events of a batch of ops, limited to one gallery when `gallery` is given; `moved` and
    /// `deleted` are reported whatever gallery the item stands in now, since it may have left the
    /// one watched earlier in the batch (a watcher that does not hold the item ignores them).
    package static func events(of ops: [Op], in replica: Replica, gallery: String?) -> [WatchEvent] {
        var events: [WatchEvent] = []
        func add(_ event: WatchEventKind, _ id: OpID?, field: String? = nil) {
            let item = id.flatMap { replica.item($0) }
            let location = id.flatMap { replica.location(of: $0) }
            let galleryName = location?.gallery ?? item?.gallery
            if let gallery, galleryName != gallery, event != .moved, event != .deleted, event != .trashed { return }
            events.append(WatchEvent(
                event: event, id: id?.description, gallery: galleryName, index: location?.index,
                title: item?.title, state: item?.state.rawValue, field: field))
        }
        for op in ops {
            switch op.action {
            case .createGallery(let name):
                if gallery == nil || gallery == name {
                    events.append(WatchEvent(event: .galleryCreated, gallery: name))
                }
            case .insert(_, _, _, let items):
                for offset in items.indices { add(.inserted, op.id.advanced(by: offset)) }
            case .move(let item, _, _, _):
                if replica.location(of: item) != nil { add(.moved, item) }
            case .delete(let item):
                add(.deleted, item)
            case .update(let item, .trashed, _):
                add(replica.item(item)?.isInTrash == true ? .trashed : .restored, item, field: ItemField.trashed.description)
            case .update(let item, let field, _):
                add(.updated, item, field: field.description)
            case .commit(let item):
                add(.committed, item)
            case .renameGallery(let identity, _), .deleteGallery(let identity):
                let shown = replica.shownName(ofIdentity: identity)
                let kind: WatchEventKind = shown?.isDeleted == false ? .galleryRenamed : .galleryDeleted
                if gallery == nil || gallery == shown?.name {
                    events.append(WatchEvent(event: kind, gallery: shown?.name ?? identity))
                }
            }
        }
        return events
    }

    /// The `progress` events of placeholders being filled, limited to one gallery when given.
    package static func events(of progress: [TransferProgress], in replica: Replica, gallery: String?) -> [WatchEvent] {
        progress.compactMap { entry in
            guard let location = replica.location(of: entry.transfer), gallery == nil || location.gallery == gallery else { return nil }
            return WatchEvent(
                event: .progress, id: entry.transfer.description, gallery: location.gallery, index: location.index,
                title: replica.item(entry.transfer)?.title, state: Item.State.placeholder.rawValue,
                done: entry.done, total: entry.total)
        }
    }
}

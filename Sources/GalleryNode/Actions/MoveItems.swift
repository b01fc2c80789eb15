import GalleryModel

/// A move of several items of this space into a gallery as one contiguous run, in the order
/// given, the first at `index` of the destination counted without them (appended when nil): a
/// multi-selection reordered within a gallery or dropped on another gallery's name. Unlike `drag`
/// it never copies nor fetches: placeholders move too, and no bytes need be here.
package enum MoveItems {
    /// Moves the items; all or nothing.
    ///
    /// - Throws: `ModelError.unknownGallery`, `.unknownItem`, `.itemDeleted`, `.indexOutOfRange`,
    ///   or `ActionFailure` for an item named twice or an empty list.
    package static func perform(_ items: [OpID], to gallery: String, at index: Int?, on node: SyncNode) throws {
        guard !items.isEmpty else { throw ActionFailure("move needs at least one item") }
        try node.perform { replica in
            guard replica.hasGallery(gallery) else { throw ModelError.unknownGallery(gallery) }
            var seen: Set<OpID> = []
            for id in items {
                guard let item = replica.item(id) else { throw ModelError.unknownItem(id) }
                guard !item.isDeleted else { throw ModelError.itemDeleted(id) }
                guard seen.insert(id).inserted else { throw ActionFailure("item \(id) is named twice; nothing was moved") }
            }
            _ = try Drop.moveLocally(items, to: gallery, at: index, in: &replica)
        }
    }
}

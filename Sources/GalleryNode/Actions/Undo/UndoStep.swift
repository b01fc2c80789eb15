import GalleryModel

/// One change a person made that an undo can take back: the op that made it (`by`) and the op that
/// had the last word before it on the same register (`before`: the item's `trashed` register, its
/// place, the field, the gallery's liveness). An undo takes a step back only while `by` is still the
/// last word on that register, so that it never overrides what someone else did since
/// (docs/design.md, "Undo and redo"). An undo's own op stands for `before` from then on
/// (`UndoJournal.alias`), so that an older action of the same person can be undone after it.
package enum UndoStep: Hashable, Sendable {
    /// The item was moved to the Trash.
    case trashed(item: OpID, by: OpID, before: OpID?)
    /// The item was taken out of the Trash.
    case restored(item: OpID, by: OpID, before: OpID?)
    /// The item was moved from the slot `from` (made by the op that put it there, so also the
    /// register's `before`), which stays as a tombstone where the item stood.
    case moved(item: OpID, by: OpID, from: OpID)
    /// A field of the item was set; it held `previous` before.
    case updated(item: OpID, field: ItemField, by: OpID, previous: FieldValue, before: OpID?)
    /// The gallery of this identity was renamed; it was shown as `previous` before.
    case renamed(gallery: String, by: OpID, previous: String, before: OpID?)
    /// The gallery of this identity was deleted.
    case galleryDeleted(gallery: String, by: OpID, before: OpID?)
    /// The gallery of this identity was brought back out of deletion.
    case galleryRevived(gallery: String, by: OpID, before: OpID?)

    /// The item the step changed, if it changed an item.
    package var item: OpID? {
        switch self {
        case .trashed(let item, _, _), .restored(let item, _, _), .moved(let item, _, _), .updated(let item, _, _, _, _): item
        case .renamed, .galleryDeleted, .galleryRevived: nil
        }
    }

    /// The gallery the step changed, if it changed a gallery.
    package var gallery: String? {
        switch self {
        case .renamed(let gallery, _, _, _), .galleryDeleted(let gallery, _, _), .galleryRevived(let gallery, _, _): gallery
        case .trashed, .restored, .moved, .updated: nil
        }
    }
}

/// The two last-writer-wins registers of a gallery that was renamed or deleted: the name people
/// see (set by `renameGallery`) and whether it is deleted (set by `deleteGallery`, cleared by a
/// `renameGallery`). Each keeps the ID of the op that last set it, so that the outcome is the
/// same whatever order the ops arrive in. A gallery never renamed nor deleted has none.
struct GalleryRegister: Hashable, Sendable {
    /// The op that last set `title`; nil when no rename was applied.
    var titleStamp: PackedID?
    /// The name shown instead of the gallery's identity; nil shows the identity.
    var title: String?
    /// The op that last set `isDeleted` (a rename or a delete).
    var liveStamp: PackedID?
    /// Whether the gallery is deleted: not shown, its items in the Trash.
    var isDeleted = false
}

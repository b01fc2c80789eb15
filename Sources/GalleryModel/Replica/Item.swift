/// A snapshot of one item as a replica shows it.
package struct Item: Hashable, Sendable {
    /// Whether an item shows an image or stands in for one whose bytes are still on their way.
    package enum State: String, Hashable, Sendable {
        /// The item's content is known.
        case ready
        /// The item stands in for content being fetched; `commit` makes it ready.
        case placeholder
    }

    /// The item's stable ID: the ID of the insert that created it.
    package var id: OpID
    /// The gallery the item is in (its last gallery, if it was deleted).
    package var gallery: String
    /// Ready or placeholder.
    package var state: State
    /// Whether the item was deleted (deleted items are never listed).
    package var isDeleted: Bool
    /// Whether the item is in the Trash (moved there, or its gallery deleted); `gallery` is then
    /// the gallery it left, where a restore brings it back.
    package var isInTrash: Bool
    /// The item's field values; absent fields are unset.
    package var fields: [ItemField: FieldValue]

    /// When the item was moved to the Trash (Unix milliseconds); nil when it was not (it may be in
    /// the Trash all the same, its gallery deleted).
    package var trashedAt: Int64? { fields[.trashed]?.integer }

    /// The title field.
    package var title: String? { fields[.title]?.text }
    /// The URL field.
    package var url: String? { fields[.url]?.text }
    /// The aspect ratio field (width / height).
    package var aspectRatio: Double? { fields[.aspectRatio]?.number }
    /// The content hash field (SHA-256, hex).
    package var contentHash: String? { fields[.contentHash]?.text }
    /// The byte size field.
    package var byteSize: Int64? { fields[.byteSize]?.integer }
    /// The media type field.
    package var mediaType: String? { fields[.mediaType]?.text }
    /// The origin field: the item this one was copied or transferred from.
    package var origin: OpID? { fields[.origin]?.id }
}

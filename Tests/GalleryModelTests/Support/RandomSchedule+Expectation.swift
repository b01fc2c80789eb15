@testable import GalleryModel

extension RandomSchedule {
    /// What the ops of the history imply for one item, whatever order they are applied in.
    struct Expectation {
        /// The item's label in `steps` (also its initial title).
        var label: String
        /// The gallery of the insert or of the move with the greatest op ID.
        var gallery: String
        /// The op that decided `gallery`.
        var galleryStamp: OpID
        /// Whether the item was inserted as a placeholder.
        var insertedAsPlaceholder: Bool
        /// Whether some replica committed it.
        var committed = false
        /// Whether some replica deleted it.
        var deleted = false
        /// The fields after the updates with the greatest op ID per field.
        var fields: [ItemField: FieldValue]
        /// The op that decided each field (absent: the insert).
        var fieldStamps: [ItemField: OpID] = [:]

        /// The state every replica must show.
        var state: Item.State {
            insertedAsPlaceholder && !committed ? .placeholder : .ready
        }
    }
}

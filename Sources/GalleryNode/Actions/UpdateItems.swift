import GalleryModel

/// A field of an item set by a person, as a step an undo can take back.
package enum UpdateItems {
    /// Sets one field of a live item; the step that undoes it.
    package static func set(_ id: OpID, _ field: ItemField, to value: FieldValue, in replica: inout Replica) throws -> UndoStep {
        let previous = replica.item(id)?.fields[field] ?? .none
        let before = replica.lastWriter(of: field, of: id)
        let op = try replica.update(id, field, to: value)
        return .updated(item: id, field: field, by: op.id, previous: previous, before: before)
    }
}

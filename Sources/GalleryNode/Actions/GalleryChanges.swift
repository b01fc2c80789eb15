import GalleryModel

/// Renaming and deleting galleries (docs/design.md, "Galleries renamed and deleted").
package enum GalleryChanges {
    /// Renames the gallery shown as `name`.
    ///
    /// - Throws: `ModelError.unknownGallery`, `.invalidGalleryName`, `.galleryNameTaken`.
    @discardableResult
    package static func rename(_ name: String, to newName: String, on node: SyncNode, scope: String? = nil) throws -> UndoJournal.Entry? {
        if let problem = FieldLimits.problem(withNewGalleryName: newName) { throw ActionError.badGalleryName(problem) }
        guard newName != name else { throw ActionError.sameName(name) }
        let steps = try node.perform { replica -> [UndoStep] in
            guard let identity = replica.galleryIdentity(of: name) else { throw ModelError.unknownGallery(name) }
            let before = replica.lastRenameOrDelete(ofIdentity: identity)
            let op = try replica.renameGallery(name, to: newName)
            return [.renamed(gallery: identity, by: op.id, previous: name, before: before)]
        }
        return node.undo.record("Renamed “\(name)” to “\(newName)”", steps, scope: scope)
    }

    /// Deletes the gallery shown as `name`: each of its items goes to the Trash (where each keeps
    /// its own 30 days), then the gallery goes.
    @discardableResult
    package static func delete(_ name: String, on node: SyncNode, scope: String? = nil) throws -> UndoJournal.Entry? {
        let time = TrashItems.now()
        let (steps, count) = try node.perform { replica -> ([UndoStep], Int) in
            guard let identity = replica.galleryIdentity(of: name) else { throw ModelError.unknownGallery(name) }
            let items = try replica.items(in: name)
            var steps: [UndoStep] = try items.map { item in
                let before = replica.lastWriter(of: .trashed, of: item.id)
                return .trashed(item: item.id, by: try replica.trash(item.id, at: time).id, before: before)
            }
            let before = replica.lastRenameOrDelete(ofIdentity: identity)
            steps.append(.galleryDeleted(gallery: identity, by: try replica.deleteGallery(name).id, before: before))
            return (steps, items.count)
        }
        return node.undo.record("Deleted “\(name)” (\(TrashItems.count(count)) to Trash)", steps, scope: scope)
    }
}

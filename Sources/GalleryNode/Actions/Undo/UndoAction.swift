import GalleryModel

/// Undo and redo (docs/design.md, "Undo and redo"): new ops that bring back what the person saw
/// before an action, never a rewrite of history. A step whose item or gallery someone else changed
/// since (or that was deleted) is skipped and reported; the rest is done in one durable batch.
package enum UndoAction {
    /// What an undo or a redo did.
    package struct Outcome: Sendable {
        /// The entry that takes this undo back (a redo of it), nil when nothing was done.
        package var entry: UndoJournal.Entry?
        /// Steps done.
        package var done: Int
        /// The items (or galleries) left as they are, changed by someone else since.
        package var skipped: [String]
        /// One line for a toast or the command line: "Undid: Moved 3 items to Trash".
        package var message: String
    }

    /// Takes an entry back: the opposite of each of its steps, newest first.
    package static func perform(_ entry: UndoJournal.Entry, redo: Bool = false, on node: SyncNode) throws -> Outcome {
        let time = TrashItems.now()
        let journal = node.undo
        let (steps, skipped) = try node.perform { replica -> ([UndoStep], [String]) in
            var made: [UndoStep] = []
            var skipped: [String] = []
            for step in entry.steps.reversed() {
                if let back = opposite(of: step, at: time, in: &replica, journal: journal) {
                    made.append(contentsOf: back)
                } else {
                    skipped.append(step.item?.description ?? step.gallery ?? "")
                }
            }
            return (made, skipped)
        }
        let recorded = journal.record(entry.label, steps)
        var message = "\(redo ? "Redid" : "Undid"): \(entry.label)"
        if !skipped.isEmpty {
            let left = skipped.count == 1 ? "1 item left as it is" : "\(skipped.count) items left as they are"
            message += steps.isEmpty ? "; nothing was done: " : "; "
            message += "\(left) (changed by someone else since)"
        }
        return Outcome(entry: recorded, done: steps.count, skipped: skipped, message: message)
    }

    /// The ops that take one step back, and the steps that take those back in turn (a redo); nil
    /// when the register the step set has had another last word since (or the item is gone).
    private static func opposite(of step: UndoStep, at time: Int64, in replica: inout Replica, journal: UndoJournal) -> [UndoStep]? {
        /// Whether `current` (the register's last word now) is still `by`, or stands for it.
        func unchanged(_ current: OpID?, _ by: OpID) -> Bool {
            current != nil && journal.resolve(current) == journal.resolve(by)
        }
        do {
            switch step {
            case .trashed(let id, let by, let before):
                let current = replica.lastWriter(of: .trashed, of: id)
                guard let item = replica.item(id), item.isInTrash, unchanged(current, by) else { return nil }
                let steps = try TrashItems.restoreSteps(id, in: &replica)
                for case .restored(_, let made, _) in steps { journal.alias(made, to: before) }
                return steps
            case .restored(let id, let by, let before):
                let current = replica.lastWriter(of: .trashed, of: id)
                guard let item = replica.item(id), !item.isDeleted, !item.isInTrash, unchanged(current, by) else { return nil }
                let op = try replica.trash(id, at: time)
                journal.alias(op.id, to: before)
                return [.trashed(item: id, by: op.id, before: current)]
            case .moved(let id, let by, let from):
                let current = replica.placement(of: id)
                guard let item = replica.item(id), !item.isDeleted, !item.isInTrash, unchanged(current, by) else { return nil }
                let op = try replica.move(id, rightAfter: from)
                journal.alias(op.id, to: from)
                return [.moved(item: id, by: op.id, from: current!)]
            case .updated(let id, let field, let by, let previous, let before):
                let current = replica.lastWriter(of: field, of: id)
                guard let item = replica.item(id), !item.isDeleted, unchanged(current, by) else { return nil }
                let value = item.fields[field] ?? .none
                let op = try replica.update(id, field, to: previous)
                journal.alias(op.id, to: before)
                return [.updated(item: id, field: field, by: op.id, previous: value, before: current)]
            case .renamed(let gallery, let by, let previous, let before):
                let current = replica.lastRenameOrDelete(ofIdentity: gallery)
                guard unchanged(current, by), let shown = replica.shownName(ofIdentity: gallery), !shown.isDeleted else { return nil }
                let op = try replica.renameGallery(shown.name, to: previous)
                journal.alias(op.id, to: before)
                return [.renamed(gallery: gallery, by: op.id, previous: shown.name, before: current)]
            case .galleryDeleted(let gallery, let by, let before):
                let current = replica.lastRenameOrDelete(ofIdentity: gallery)
                guard unchanged(current, by) else { return nil }
                let op = try replica.reviveGallery(identity: gallery)
                journal.alias(op.id, to: before)
                return [.galleryRevived(gallery: gallery, by: op.id, before: current)]
            case .galleryRevived(let gallery, let by, let before):
                let current = replica.lastRenameOrDelete(ofIdentity: gallery)
                guard unchanged(current, by), let shown = replica.shownName(ofIdentity: gallery), !shown.isDeleted else { return nil }
                let op = try replica.deleteGallery(shown.name)
                journal.alias(op.id, to: before)
                return [.galleryDeleted(gallery: gallery, by: op.id, before: current)]
            }
        } catch {
            // A name taken since, an item deleted meanwhile: left as it is, like a change by someone else.
            return nil
        }
    }
}

import Foundation
import GalleryModel

/// The Trash as people use it (docs/design.md, "Trash"): move items there, restore them, empty it,
/// and the 30-day expiry. Each checks every item against one replica before its first op, then
/// makes all its ops in one `perform`: one durable batch, or a refusal with nothing done.
package enum TrashItems {
    /// How long an item stays in the Trash before `expire` deletes it for good.
    package static let keptFor: TimeInterval = 30 * 24 * 3600

    /// Now, in the Unix milliseconds of the `trashed` field.
    package static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    /// "1 item", "40 items".
    package static func count(_ count: Int) -> String {
        count == 1 ? "1 item" : "\(count) items"
    }

    /// Moves items to the Trash, all or none; the journal entry that undoes it, recorded in
    /// `scope` (nil: the caller keeps the entry's ID, as the page does), and the line that says
    /// what was done. Placeholders are deleted instead, which cancels their transfers (there is no
    /// picture to restore; rule 10), and no undo brings them back.
    ///
    /// - Throws: `ActionError` naming the first item that is unknown, deleted, in the Trash
    ///   already, or named twice.
    @discardableResult
    package static func trash(_ ids: [OpID], on node: SyncNode, scope: String? = nil) throws -> (entry: UndoJournal.Entry?, message: String) {
        guard !ids.isEmpty else { throw ActionError.nothingNamed(command: "delete", what: "item") }
        let time = now()
        let (steps, cancelled) = try node.perform { replica -> ([UndoStep], Int) in
            try check(ids, in: replica, verb: "moved to the Trash") { item in item.isInTrash ? .itemInTrash(item.id) : nil }
            var steps: [UndoStep] = []
            var cancelled = 0
            for id in ids {
                // A placeholder holds no picture yet: deleting it cancels its transfer (rule 10).
                if replica.item(id)?.state == .placeholder {
                    try replica.delete(id)
                    cancelled += 1
                    continue
                }
                let before = replica.lastWriter(of: .trashed, of: id)
                steps.append(.trashed(item: id, by: try replica.trash(id, at: time).id, before: before))
            }
            return (steps, cancelled)
        }
        var label = steps.isEmpty ? "" : "Moved \(count(steps.count)) to Trash"
        if cancelled > 0 { label += (label.isEmpty ? "Cancelled " : "; cancelled ") + (cancelled == 1 ? "1 transfer" : "\(cancelled) transfers") }
        return (node.undo.record(label, steps, scope: scope), label)
    }

    /// Takes items out of the Trash, each back to the gallery and place it left (its gallery
    /// comes back too when it was deleted), all or none.
    @discardableResult
    package static func restore(_ ids: [OpID], on node: SyncNode, scope: String? = nil) throws -> UndoJournal.Entry? {
        guard !ids.isEmpty else { throw ActionError.nothingNamed(command: "restore", what: "item") }
        let steps = try node.perform { replica -> [UndoStep] in
            try check(ids, in: replica, verb: "restored") { item in item.isInTrash ? nil : .notInTrash(item.id) }
            var steps: [UndoStep] = []
            for id in ids { steps += try restoreSteps(id, in: &replica) }
            return steps
        }
        return node.undo.record("Restored \(count(ids.count))", steps, scope: scope)
    }

    /// Restores one item; the steps that undo it, with the registers' last words before.
    package static func restoreSteps(_ id: OpID, in replica: inout Replica) throws -> [UndoStep] {
        let trashedBefore = replica.lastWriter(of: .trashed, of: id)
        let gallery = replica.galleryIdentity(ofItem: id) ?? ""
        let galleryBefore = replica.lastRenameOrDelete(ofIdentity: gallery)
        return try replica.restore(id).map { op in
            if case .renameGallery = op.action { return .galleryRevived(gallery: gallery, by: op.id, before: galleryBefore) }
            return .restored(item: id, by: op.id, before: trashedBefore)
        }
    }

    /// Deletes items of the Trash for good (all of it when `ids` is nil): real deletes, which
    /// nothing undoes. Returns how many were deleted.
    @discardableResult
    package static func empty(_ ids: [OpID]?, on node: SyncNode) throws -> Int {
        try node.perform { replica -> Int in
            let targets = ids ?? replica.trash.map(\.id)
            if let ids {
                try check(ids, in: replica, verb: "deleted") { item in item.isInTrash ? nil : .notInTrash(item.id) }
            }
            for id in targets { try replica.delete(id) }
            return targets.count
        }
    }

    /// The 30-day expiry, run by every node now and then: deletes for good the items trashed more
    /// than `keptFor` before `now`, and dates the items of a deleted gallery that were never
    /// trashed themselves (inserted there concurrently with its deletion) so that they expire in
    /// turn. Two nodes doing it at once delete once (rule 8) and date the same way (last writer
    /// wins). Returns how many items were deleted.
    @discardableResult
    package static func expire(on node: SyncNode, now: Int64 = now(), keptFor: TimeInterval = keptFor) throws -> Int {
        let limit = now - Int64(keptFor * 1000)
        let (expired, undated) = node.read { replica -> ([OpID], [OpID]) in
            let trash = replica.trash
            return (trash.filter { ($0.trashedAt ?? .max) <= limit }.map(\.id), trash.filter { $0.trashedAt == nil }.map(\.id))
        }
        guard !expired.isEmpty || !undated.isEmpty else { return 0 }
        return try node.perform { replica -> Int in
            var deleted = 0
            for id in expired where replica.item(id)?.isInTrash == true {
                try replica.delete(id)
                deleted += 1
            }
            for id in undated where replica.item(id).map({ $0.isInTrash && $0.trashedAt == nil }) == true {
                try replica.update(id, .trashed, to: .integer(now))
            }
            return deleted
        }
    }

    /// Refuses the batch at its first item that is unknown, deleted, named twice, or for which
    /// `problem` gives the model's refusal (in the Trash, or not).
    static func check(_ ids: [OpID], in replica: Replica, verb: String, _ problem: (Item) -> ModelError?) throws {
        var seen: Set<OpID> = []
        for id in ids {
            guard let item = replica.item(id) else { throw ActionError.refusedItem("\(id)", verb: verb, because: .unknownItem(id)) }
            guard !item.isDeleted else { throw ActionError.refusedItem("\(id)", verb: verb, because: .itemDeleted(id)) }
            guard seen.insert(id).inserted else { throw ActionError.refusedItem("\(id)", verb: verb, because: .repeatedItem(id)) }
            if let refusal = problem(item) { throw refusal }
        }
    }
}

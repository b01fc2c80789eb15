import GalleryModel
import GalleryWire

/// A move of several items of this space into a gallery as one contiguous run, in the order
/// given, the first at `index` of the destination counted without them (appended when nil; the
/// gallery the items share when no destination is named, as `gallery move` without `--to`): a
/// multi-selection reordered within a gallery or dropped on another gallery's name. Unlike `drag`
/// it never copies nor fetches: placeholders move too, and no bytes need be here.
package enum MoveItems {
    /// Moves the items; all or nothing.
    ///
    /// - Throws: `ModelError.unknownGallery`, `.indexOutOfRange`, or `ActionError` for an item
    ///   unknown, deleted or named twice (`resolveLive`, as `gallery move`) or an empty list.
    @discardableResult
    package static func perform(_ items: [OpID], to gallery: String?, at index: Int?, on node: SyncNode,
                                scope: String? = nil) throws -> UndoJournal.Entry? {
        guard !items.isEmpty else { throw ActionError.nothingNamed(command: "move", what: "ITEM") }
        let steps = try node.perform { replica -> [UndoStep] in
            if let gallery, !replica.hasGallery(gallery) { throw ModelError.unknownGallery(gallery) }
            // Checked as `gallery move` checks its items: the same refusal, with the same line.
            _ = try items.map(ItemReference.id).resolveLive(in: replica, verb: "moved")
            return try moveRun(items, to: gallery ?? destination(of: items, in: replica), at: index, in: &replica)
        }
        return node.undo.record("Moved \(TrashItems.count(items.count))", steps, scope: scope)
    }

    /// The gallery live items all stand in: a move's destination when it names none.
    ///
    /// - Throws: `ActionError.ambiguousDestination` when they stand in several (or none).
    package static func destination(of items: [OpID], in replica: Replica) throws -> String {
        let galleries = Set(items.compactMap { replica.location(of: $0)?.gallery })
        guard galleries.count == 1, let only = galleries.first else { throw ActionError.ambiguousDestination(galleries: galleries.count) }
        return only
    }

    /// The move ops of a run: each item goes right before the item that stands at `index` once
    /// the run is lifted out (the end when none). The items are live and distinct; the index is
    /// checked before the first op, so that a refused run moves nothing.
    ///
    /// - Complexity: O(k log n) for k items: the gallery is never listed, so that a move of a few
    ///   items costs the same in a gallery of any size.
    /// - Returns: The steps that undo the run.
    @discardableResult
    package static func moveRun(_ items: [OpID], to gallery: String, at index: Int?, in replica: inout Replica) throws -> [UndoStep] {
        let count = try replica.count(in: gallery)
        // Where the moved items stand in the destination now, in order: they are not counted.
        let lifted = Set(items).compactMap { replica.location(of: $0) }.filter { $0.gallery == gallery }.map(\.index).sorted()
        let staying = count - lifted.count
        let index = index ?? staying
        guard index >= 0, index <= staying else { throw ModelError.indexOutOfRange(index: index, count: staying) }
        // The index-th item that stays, counted among all: every lifted item before it shifts it.
        var position = index
        for place in lifted {
            guard place <= position else { break }
            position += 1
        }
        let anchor = position < count ? try replica.item(at: position, in: gallery).id : nil
        var steps: [UndoStep] = []
        for id in items {
            let here = replica.location(of: id)
            let inGallery = here?.gallery == gallery
            let target: Int
            if let anchor, let anchorIndex = replica.location(of: anchor)?.index {
                target = anchorIndex - (inGallery && here!.index < anchorIndex ? 1 : 0)
            } else {
                target = try replica.count(in: gallery) - (inGallery ? 1 : 0)
            }
            let from = replica.placement(of: id)
            let op = try replica.move(id, to: gallery, at: target)
            if let from { steps.append(.moved(item: id, by: op.id, from: from)) }
        }
        return steps
    }
}

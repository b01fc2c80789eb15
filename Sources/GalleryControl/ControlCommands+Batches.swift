import GalleryModel
import GalleryNode
import GalleryWire

/// The commands that change many items at once (`move`, `delete`, `update`): each resolves and
/// checks every item against one replica before its first op, then makes all its ops in one
/// `perform`, so that a command is one durable batch applied whole, or refused with nothing done.
extension ControlCommands {
    /// `move`: the items stand as one run in the order given, the first at `index` of `gallery`
    /// as counted without them; `gallery` nil is the items' own, which they must share.
    static func move(_ items: [ItemReference], to gallery: String?, at index: Int, on node: SyncNode) throws {
        guard !items.isEmpty else { throw ActionError.nothingNamed(command: "move", what: "ITEM") }
        let steps = try node.perform { replica -> [UndoStep] in
            let ids = try items.resolveLive(in: replica, verb: "moved")
            if let gallery, !replica.hasGallery(gallery) { throw ActionError.unknownGallery(gallery) }
            return try MoveItems.moveRun(ids, to: gallery ?? MoveItems.destination(of: ids, in: replica), at: index, in: &replica)
        }
        node.undo.record("Moved \(TrashItems.count(items.count))", steps, scope: UndoJournal.commandLine)
    }

    /// `delete`: moves the items to the Trash. Every item is resolved first, against one replica,
    /// so that GALLERY:INDEX means the same list for all (a place that changes before the ops are
    /// made refuses the whole batch: `TrashItems` checks again).
    static func delete(_ items: [ItemReference], on node: SyncNode) throws -> String {
        guard !items.isEmpty else { throw ActionError.nothingNamed(command: "delete", what: "ITEM") }
        let ids = try node.read { replica in try items.resolveLive(in: replica, verb: "moved to the Trash") }
        return try TrashItems.trash(ids, on: node, scope: UndoJournal.commandLine).message
    }

    /// `update`: every item and both fields are checked before the first op, so that a refused
    /// update changes nothing.
    static func update(_ request: UpdateRequest, on node: SyncNode) throws {
        guard request.title != nil || request.aspect != nil else { throw ActionError.nothingNamed(command: "update", what: "of a title and an aspect ratio") }
        guard !request.items.isEmpty else { throw ActionError.nothingNamed(command: "update", what: "ITEM") }
        if let title = request.title, !ItemField.title.accepts(.text(title)) { throw ModelError.invalidFieldValue(.title) }
        if let aspect = request.aspect, !ItemField.aspectRatio.accepts(.number(aspect)) {
            throw ModelError.invalidFieldValue(.aspectRatio)
        }
        let steps = try node.perform { replica -> [UndoStep] in
            var steps: [UndoStep] = []
            for id in try request.items.resolveLive(in: replica, verb: "updated") {
                if let title = request.title { steps.append(try UpdateItems.set(id, .title, to: .text(title), in: &replica)) }
                if let aspect = request.aspect { steps.append(try UpdateItems.set(id, .aspectRatio, to: .number(aspect), in: &replica)) }
            }
            return steps
        }
        node.undo.record("Changed \(TrashItems.count(request.items.count))", steps, scope: UndoJournal.commandLine)
    }
}

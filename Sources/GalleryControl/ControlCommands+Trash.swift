import GalleryModel
import GalleryNode
import GalleryWire

/// The Trash, gallery renames and deletes, and `undo`/`redo` from the command line: each action
/// that can be undone is recorded in the node's journal under the command line's scope.
extension ControlCommands {
    /// Carries out `list-trash`, `restore`, `empty-trash`, `rename-gallery`, `delete-gallery`,
    /// `undo` and `redo`.
    static func trashOrUndo(_ command: ControlCommand, on node: SyncNode) throws -> ControlReply {
        let scope = UndoJournal.commandLine
        switch command {
        case .listTrash:
            return .galleries([GalleryListing(gallery: "Trash", items: node.read { replica in
                replica.trash.map { trashListing($0, transfers: node.transfers) }
            })])
        case .restore(let items):
            let ids = try node.read { replica in try items.map { try $0.resolve(in: replica) } }
            return .message(try TrashItems.restore(ids, on: node, scope: scope)?.label ?? "")
        case .emptyTrash(let items):
            let ids = items.isEmpty ? nil : try node.read { replica in try items.map { try $0.resolve(in: replica) } }
            let count = try TrashItems.empty(ids, on: node)
            return .message("Deleted \(TrashItems.count(count)) for good")
        case .renameGallery(let name, let newName):
            return .message(try GalleryChanges.rename(name, to: newName, on: node, scope: scope)?.label ?? "")
        case .deleteGallery(let name):
            return .message(try GalleryChanges.delete(name, on: node, scope: scope)?.label ?? "")
        case .undo, .redo:
            let redo = command == .redo
            guard let entry = node.undo.pop(scope, redo: redo) else {
                throw ActionError.nothingToUndo(redo: redo)
            }
            let outcome: UndoAction.Outcome
            do {
                outcome = try UndoAction.perform(entry, redo: redo, on: node)
            } catch {
                // Nothing was done (the node could not store it): the action stays the next to undo.
                node.undo.push(entry, scope, redo: redo)
                throw error
            }
            if let back = outcome.entry { node.undo.push(back, scope, redo: !redo) }
            return .message(outcome.message)
        default:
            throw ActionError.unsupported(command.name.rawValue)
        }
    }

    /// An item of the Trash as `list --trash` shows it: with the gallery it left and when.
    package static func trashListing(_ item: Item, transfers: TransferManager?) -> ItemListing {
        var listing = listing(item, transfers: transfers)
        listing.from = item.gallery
        listing.trashedAt = item.trashedAt
        return listing
    }
}

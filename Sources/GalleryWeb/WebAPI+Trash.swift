import Foundation
import GalleryControl
import GalleryModel
import GalleryNode
import GalleryWire

/// The Trash, gallery renames and deletes, and undo over the web (http-api.md, "Trash and undo").
/// Every action that can be undone answers with `undo`: the ID of the node's journal entry that
/// `POST /api/undo` takes back. The page keeps its own stacks of these IDs (per tab).
extension WebAPI {
    /// `GET /api/trash`: the Trash, the most recently trashed first, each ITEM with `from` (the
    /// gallery it left) and `trashedAt` (Unix milliseconds, null for an item of a deleted gallery).
    func trash() throws -> WebResponse {
        let (items, last) = try feed.snapshot { [node] replica in
            replica.trash.map { item -> WebJSON in
                var json = WebItems.json(ControlCommands.trashListing(item, transfers: node.transfers))
                json["from"] = WebJSON(item.gallery)
                json["trashedAt"] = WebJSON(item.trashedAt)
                return json
            }
        }
        return .json(["items": .array(items), "lastEventId": WebJSON(last)])
    }

    /// The changing routes of the Trash and of undo, their bodies decoded (`WebItemRequests`).
    func trashChange(_ request: any WebRequestBody) throws -> WebResponse {
        switch request {
        case let body as RestoreBody:
            // Resolved as `gallery restore` resolves its items (`ControlCommands.trashOrUndo`).
            let ids = try node.read { replica in try body.items.map { try ItemReference.id($0).resolve(in: replica) } }
            let entry = try TrashItems.restore(ids, on: node)
            return .json(["restored": WebJSON(body.items.map(\.description)), "undo": WebJSON(entry?.id),
                          "message": .string(entry?.label ?? ""), "lastEventId": advance()])
        case let body as EmptyTrashBody:
            // No `items`: all of the Trash. Nothing undoes it: the page asks first.
            let ids = try body.items.map { items in try node.read { replica in try items.map { try ItemReference.id($0).resolve(in: replica) } } }
            let count = try TrashItems.empty(ids, on: node)
            return .json(["deleted": WebJSON(count), "message": .string("Deleted \(TrashItems.count(count)) for good"), "lastEventId": advance()])
        case let body as RenameGalleryBody:
            // The name's rule is the command line's (`FieldLimits.problem(withNewGalleryName:)`), untrimmed as there.
            let entry = try GalleryChanges.rename(body.gallery, to: body.name, on: node)
            return .json(["gallery": .string(body.name), "undo": WebJSON(entry?.id), "message": .string(entry?.label ?? ""),
                          "lastEventId": advance()])
        case let body as DeleteGalleryBody:
            let entry = try GalleryChanges.delete(body.gallery, on: node)
            return .json(["undo": WebJSON(entry?.id), "message": .string(entry?.label ?? ""), "lastEventId": advance()])
        case let body as UndoBody:
            guard let entry = node.undo.entry(body.entry) else {
                throw WebRefusal(410, "undoExpired", "that action is no longer kept (the node keeps the last \(UndoJournal.capacity) while it runs)")
            }
            let outcome = try UndoAction.perform(entry, redo: body.redo, on: node)
            return .json(["undo": WebJSON(outcome.entry?.id), "message": .string(outcome.message), "done": WebJSON(outcome.done),
                          "skipped": WebJSON(outcome.skipped), "lastEventId": advance()])
        default:
            throw WebRefusal(500, "internal", "not a Trash route")
        }
    }
}

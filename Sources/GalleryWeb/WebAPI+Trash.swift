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
            replica.trash.map { item -> [String: Any] in
                var json = WebItems.json(ControlCommands.trashListing(item, transfers: node.transfers))
                json["from"] = item.gallery
                json["trashedAt"] = item.trashedAt ?? NSNull()
                return json
            }
        }
        return .json(["items": items, "lastEventId": last])
    }

    /// The changing routes of the Trash and of undo.
    func trashChange(_ change: WebRoute.Change, _ json: [String: Any]) throws -> WebResponse {
        switch change {
        case .restore:
            let ids = try trashItemIDs(json["items"])
            let entry = try TrashItems.restore(ids, on: node)
            return .json(["restored": ids.map(\.description), "undo": entry?.id ?? NSNull(), "message": entry?.label ?? "",
                          "lastEventId": feed.advance()])
        case .emptyTrash:
            // No `items`: all of the Trash. Nothing undoes it: the page asks first.
            let ids = json["items"] == nil || json["items"] is NSNull ? nil : try trashItemIDs(json["items"])
            let count = try TrashItems.empty(ids, on: node)
            return .json(["deleted": count, "message": "Deleted \(TrashItems.count(count)) for good", "lastEventId": feed.advance()])
        case .renameGallery:
            let gallery = json["gallery"] as? String ?? ""
            // The name's rule is the command line's (`FieldLimits.problem(withNewGalleryName:)`).
            let name = (json["name"] as? String ?? "").trimmingCharacters(in: .whitespaces)
            let entry = try GalleryChanges.rename(gallery, to: name, on: node)
            return .json(["gallery": name, "undo": entry?.id ?? NSNull(), "message": entry?.label ?? "", "lastEventId": feed.advance()])
        case .deleteGallery:
            let entry = try GalleryChanges.delete(json["gallery"] as? String ?? "", on: node)
            return .json(["undo": entry?.id ?? NSNull(), "message": entry?.label ?? "", "lastEventId": feed.advance()])
        case .undo:
            guard let number = json["entry"] as? NSNumber, let id = Int(exactly: number.doubleValue) else {
                throw WebRefusal(400, "badEntry", "entry is the number an action answered as undo")
            }
            guard let entry = node.undo.entry(id) else {
                throw WebRefusal(410, "undoExpired", "that action is no longer kept (the node keeps the last \(UndoJournal.capacity) while it runs)")
            }
            let outcome = try UndoAction.perform(entry, redo: json["redo"] as? Bool == true, on: node)
            return .json(["undo": outcome.entry?.id ?? NSNull(), "message": outcome.message, "done": outcome.done,
                          "skipped": outcome.skipped, "lastEventId": feed.advance()])
        default:
            throw WebRefusal(500, "internal", "not a Trash route")
        }
    }

    /// Item IDs of a Trash route: 1 to 10,000 `COUNTER@REPLICA`.
    private func trashItemIDs(_ value: Any?) throws -> [OpID] {
        guard let texts = value as? [Any], !texts.isEmpty, texts.count <= ControlCommand.maximumBatchItems else {
            throw WebRefusal(400, "badItems", "name 1 to 10,000 items")
        }
        return try texts.map { text in
            guard let text = text as? String, let id = OpID(text) else { throw WebRefusal(404, "unknownItem", "\(text) is not an item ID") }
            return id
        }
    }
}

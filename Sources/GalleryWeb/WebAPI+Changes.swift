import Foundation
import GalleryControl
import GalleryModel
import GalleryNode
import GalleryWire

/// The changing routes (http-api.md section 5): each answers once the node applied the change
/// and its events are in the stream, with `lastEventId`.
extension WebAPI {
    /// Carries out one POST.
    func change(_ change: WebRoute.Change, _ json: [String: Any]) throws -> WebResponse {
        let index = try optionalIndex(json)
        switch change {
        case .newGallery:
            // The name's rule is the command line's: `ControlCommand.galleryNameProblem`.
            let name = json["name"] as? String ?? ""
            _ = try ControlCommands.execute(.newGallery(name), on: node)
            return .json(["gallery": name, "lastEventId": feed.advance()], status: 201)
        case .move:
            let ids = try itemIDs(json["items"])
            let entry = try MoveItems.perform(ids, to: json["to"] as? String ?? "", at: index, on: node)
            return .json(["moved": ids.map(\.description), "undo": entry?.id ?? NSNull(), "lastEventId": feed.advance()])
        case .delete:
            // Into the Trash (http-api.md): `deleted` names what left the gallery, `undo` takes it back.
            let ids = try itemIDs(json["items"])
            let (entry, message) = try TrashItems.trash(ids, on: node)
            return .json(["deleted": ids.map(\.description), "undo": entry?.id ?? NSNull(), "message": message,
                          "lastEventId": feed.advance()])
        case .update:
            let id = try itemIDs([json["item"] ?? NSNull()])[0]
            let entry = try update(id, field: json["field"] as? String ?? "", value: json["value"])
            return .json(["updated": id.description, "undo": entry?.id ?? NSNull(), "lastEventId": feed.advance()])
        case .restore, .emptyTrash, .renameGallery, .deleteGallery, .undo:
            return try trashChange(change, json)
        case .invite, .revoke:
            return try membershipChange(change, json)
        case .addURL:
            return try addURL(json, index: index)
        case .cancelTransfer:
            let id = try itemIDs([json["transfer"] ?? NSNull()])[0]
            guard let transfers = node.transfers else { throw ActionError.noBlobs }
            try transfers.cancel([id])
            return .json(["cancelled": id.description, "lastEventId": feed.advance()])
        case .announceUploads:
            let files = (json["files"] as? [[String: Any]] ?? []).map {
                Upload.File(name: $0["name"] as? String ?? "", size: ($0["size"] as? NSNumber)?.intValue ?? -1,
                            mediaType: $0["mediaType"] as? String ?? "")
            }
            guard !files.isEmpty, files.count <= ControlCommand.maximumBatchItems else { throw WebRefusal(400, "badFiles", "announce 1 to 10,000 files") }
            let made = try uploads.begin(files, into: json["to"] as? String ?? "", at: index)
            return .json(["uploads": made.map { ["upload": $0.upload, "item": $0.item.description] },
                          "lastEventId": feed.advance()], status: 201)
        case .drop:
            return try drop(json, index: index)
        }
    }

    /// `index`, when given, must be an integer.
    private func optionalIndex(_ json: [String: Any]) throws -> Int? {
        guard let value = json["index"], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, let index = Int(exactly: number.doubleValue) else {
            throw WebRefusal(400, "badIndex", "index is a whole number")
        }
        return index
    }

    /// Item IDs `COUNTER@REPLICA` from a JSON array.
    private func itemIDs(_ value: Any?) throws -> [OpID] {
        guard let texts = value as? [Any], !texts.isEmpty, texts.count <= ControlCommand.maximumBatchItems else {
            throw WebRefusal(400, "badItems", "name 1 to 10,000 items")
        }
        return try texts.map { text in
            guard let text = text as? String, let id = OpID(text) else { throw WebRefusal(404, "unknownItem", "\(text) is not an item ID") }
            return id
        }
    }

    /// `items/update`: one field (`title`, `url`, `aspectRatio`) set, or cleared with null.
    private func update(_ id: OpID, field name: String, value: Any?) throws -> UndoJournal.Entry? {
        let field: ItemField
        let fieldValue: FieldValue
        switch (name, value) {
        case ("title", let text as String): (field, fieldValue) = (.title, .text(text))
        case ("url", let text as String): (field, fieldValue) = (.url, .text(text))
        case ("aspectRatio", let number as NSNumber): (field, fieldValue) = (.aspectRatio, .number(number.doubleValue))
        case ("title", is NSNull): (field, fieldValue) = (.title, .none)
        case ("url", is NSNull): (field, fieldValue) = (.url, .none)
        default: throw WebRefusal(400, "badField", "fields are title, url (text) and aspectRatio (a number)")
        }
        if let problem = FieldLimits.problem(with: fieldValue, for: field) { throw ActionError.outOfBounds(problem) }
        let step = try node.perform { replica in
            guard replica.item(id)?.isDeleted == false else { throw ModelError.unknownItem(id) }
            return try UpdateItems.set(id, field, to: fieldValue, in: &replica)
        }
        let what = field == .title ? "the title" : "the \(field) field"
        return node.undo.record("Changed \(what) of 1 item", [step])
    }

    /// `items/add-url`: an image kept by reference.
    private func addURL(_ json: [String: Any], index: Int?) throws -> WebResponse {
        let url = json["url"] as? String ?? ""
        let lower = url.lowercased()
        // The length is the command line's rule (`FieldLimits.urlBytes`, checked by `AddImage`).
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw WebRefusal(400, "badURL", "only http: and https: URLs")
        }
        let request = AddRequest(sources: [.url(url)], gallery: json["to"] as? String, index: index, title: json["title"] as? String,
                                 aspect: (json["aspectRatio"] as? NSNumber)?.doubleValue)
        let ids = try AddImage.perform(request, defaultGallery: node.configuration.name, on: node)
        let item = node.read { [node] replica in replica.item(ids[0]).map { ControlCommands.listing($0, transfers: node.transfers) } }
        return .json(["item": item.map(WebItems.json) ?? NSNull(), "lastEventId": feed.advance()], status: 201)
    }

    /// `drops`: the cross-node drop of a descriptor (section 7), exactly `gallery drag`.
    private func drop(_ json: [String: Any], index: Int?) throws -> WebResponse {
        guard let descriptor = json["descriptor"] as? [String: Any], let items = descriptor["items"] as? [[String: Any]],
              let to = json["to"] as? String, !items.isEmpty, items.count <= ControlCommand.maximumBatchItems else {
            throw WebRefusal(400, "badDescriptor", "a drop needs a descriptor with 1 to 10,000 items and a gallery")
        }
        guard descriptor["space"] as? String == space else {
            throw WebRefusal(403, "otherSpace", "the items come from another space")
        }
        if descriptor["wholeGallery"] as? Bool == true, descriptor["gallery"] as? String == to {
            throw ActionError.intoItself(to)
        }
        let ids = try itemIDs(items.map { $0["id"] ?? NSNull() })
        let operation = json["operation"] as? String ?? "copy"
        guard operation == "copy" || operation == "move" else { throw WebRefusal(400, "badDescriptor", "operation is copy or move") }
        let request = DragRequest(items: ids.map { .item(.id($0)) }, gallery: to, index: index, move: operation == "move")
        let listings = try Drop.perform(request, on: node)
        let placements = listings.map { ["source": $0.source, "item": $0.item, "transfer": $0.transfer ?? NSNull()] as [String: Any] }
        let waiting = listings.contains { $0.transfer != nil }
        return .json(["placements": placements, "lastEventId": feed.advance()], status: waiting ? 202 : 200)
    }
}

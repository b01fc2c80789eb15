import Foundation
import GalleryControl
import GalleryModel
import GalleryNode
import GalleryWire

/// The changing routes (http-api.md section 5): each answers once the node applied the change
/// and its events are in the stream, with `lastEventId`. The body is decoded into its route's type
/// (`WebRoute.Change.bodyType`, `WebRequestBody`) and, where the command line has the action,
/// checked by the command's own rules (`ControlCommands.check`) before anything is done.
extension WebAPI {
    /// Carries out one POST.
    func change(_ change: WebRoute.Change, body: [UInt8]) throws -> WebResponse {
        let request = try change.bodyType.decode(body)
        if let command = request.command { try ControlCommands.check(command) }
        switch (change, request) {
        case (.newGallery, let body as NewGalleryBody):
            _ = try ControlCommands.execute(.newGallery(body.name), on: node)
            return .json(["gallery": .string(body.name), "lastEventId": advance()], status: 201)
        case (.move, let body as MoveBody):
            let entry = try MoveItems.perform(body.items, to: body.to, at: body.index, on: node)
            return .json(["moved": WebJSON(body.items.map(\.description)), "undo": WebJSON(entry?.id), "lastEventId": advance()])
        case (.delete, let body as DeleteBody):
            // Into the Trash (http-api.md): `deleted` names what left the gallery, `undo` takes it back.
            // Resolved as `gallery delete` resolves its items: the same refusal, with the same line.
            let ids = try node.read { replica in try body.items.map(ItemReference.id).resolveLive(in: replica, verb: "moved to the Trash") }
            let (entry, message) = try TrashItems.trash(ids, on: node)
            return .json(["deleted": WebJSON(body.items.map(\.description)), "undo": WebJSON(entry?.id), "message": .string(message),
                          "lastEventId": advance()])
        case (.update, let body as UpdateBody):
            let entry = try update(body)
            return .json(["updated": .string(body.item.description), "undo": WebJSON(entry?.id), "lastEventId": advance()])
        case (.restore, _), (.emptyTrash, _), (.renameGallery, _), (.deleteGallery, _), (.undo, _):
            return try trashChange(request)
        case (.invite, _), (.revoke, _):
            return try membershipChange(request)
        case (.addURL, let body as AddURLBody):
            let ids = try AddImage.perform(body.request, defaultGallery: node.configuration.name, on: node)
            let item = node.read { [node] replica in replica.item(ids[0]).map { ControlCommands.listing($0, transfers: node.transfers) } }
            return .json(["item": item.map(WebItems.json) ?? .null, "lastEventId": advance()], status: 201)
        case (.cancelTransfer, let body as CancelTransferBody):
            _ = try ControlCommands.execute(.cancel([body.transfer]), on: node)
            return .json(["cancelled": .string(body.transfer.description), "lastEventId": advance()])
        case (.announceUploads, let body as AnnounceUploadsBody):
            let made = try uploads.begin(body.files, into: body.to, at: body.index)
            return .json(["uploads": .array(made.map { ["upload": .string($0.upload), "item": .string($0.item.description)] }),
                          "lastEventId": advance()], status: 201)
        case (.drop, let body as DropBody):
            return try drop(body)
        default:
            throw WebRefusal(500, "internal", "the body of \(change) was decoded as \(type(of: request))")
        }
    }

    /// The durable position after a change (`lastEventId`).
    func advance() -> WebJSON { .integer(Int64(feed.advance())) }

    /// `items/update`: one field (`title`, `url`, `aspectRatio`) set, or cleared with null.
    private func update(_ body: UpdateBody) throws -> UndoJournal.Entry? {
        let step = try node.perform { replica in
            guard replica.item(body.item)?.isDeleted == false else { throw ModelError.unknownItem(body.item) }
            return try UpdateItems.set(body.item, body.field, to: body.value, in: &replica)
        }
        let what = body.field == .title ? "the title" : "the \(body.field) field"
        return node.undo.record("Changed \(what) of 1 item", [step])
    }

    /// `drops`: the cross-node drop of a descriptor (section 7), exactly `gallery drag`.
    private func drop(_ body: DropBody) throws -> WebResponse {
        guard body.space == space else { throw WebRefusal(403, "otherSpace", "the items come from another space") }
        if let dragged = body.wholeGallery, dragged == body.to { throw ActionError.intoItself(body.to) }
        let listings = try Drop.perform(body.request, on: node)
        let placements = listings.map { listing -> WebJSON in
            ["source": .string(listing.source), "item": .string(listing.item), "transfer": WebJSON(listing.transfer)]
        }
        let waiting = listings.contains { $0.transfer != nil }
        return .json(["placements": .array(placements), "lastEventId": advance()], status: waiting ? 202 : 200)
    }
}

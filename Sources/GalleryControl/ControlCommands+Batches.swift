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
        guard !items.isEmpty else { throw ActionFailure("move needs at least one ITEM") }
        try node.perform { replica in
            let ids = try items.resolveLive(in: replica, verb: "moved")
            let target: String
            if let gallery {
                guard replica.hasGallery(gallery) else { throw ActionFailure("no gallery named \"\(gallery)\"; nothing was moved") }
                target = gallery
            } else {
                let galleries = Set(ids.compactMap { replica.location(of: $0)?.gallery })
                guard galleries.count == 1, let only = galleries.first else {
                    throw ActionFailure("the items stand in \(galleries.count) galleries: name the destination with --to; nothing was moved")
                }
                target = only
            }
            try MoveItems.moveRun(ids, to: target, at: index, in: &replica)
        }
    }

    /// `delete`: every item is resolved and checked first, so that GALLERY:INDEX means the same
    /// list for all and a refused delete deletes nothing.
    static func delete(_ items: [ItemReference], on node: SyncNode) throws {
        guard !items.isEmpty else { throw ActionFailure("delete needs at least one ITEM") }
        try node.perform { replica in
            for id in try items.resolveLive(in: replica, verb: "deleted") { try replica.delete(id) }
        }
    }

    /// `update`: every item and both fields are checked before the first op, so that a refused
    /// update changes nothing.
    static func update(_ request: UpdateRequest, on node: SyncNode) throws {
        guard request.title != nil || request.aspect != nil else { throw ActionFailure("update needs a title or an aspect ratio") }
        guard !request.items.isEmpty else { throw ActionFailure("update needs at least one ITEM") }
        if let title = request.title, !ItemField.title.accepts(.text(title)) { throw ModelError.invalidFieldValue(.title) }
        if let aspect = request.aspect, !ItemField.aspectRatio.accepts(.number(aspect)) {
            throw ModelError.invalidFieldValue(.aspectRatio)
        }
        try node.perform { replica in
            for id in try request.items.resolveLive(in: replica, verb: "updated") {
                if let title = request.title { try replica.update(id, .title, to: .text(title)) }
                if let aspect = request.aspect { try replica.update(id, .aspectRatio, to: .number(aspect)) }
            }
        }
    }
}

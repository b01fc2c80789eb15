import GalleryModel
import GalleryWire

// The bodies of the routes that change galleries and items (http-api.md section 5), one type per
// route: each field read once, with its one rule.

/// `POST /api/galleries` `{"name"}`: `new-gallery NAME`.
struct NewGalleryBody: WebRequestBody {
    let name: String
    var command: ControlCommand? { .newGallery(name) }

    init(from decoder: any Decoder) throws {
        name = try decoder.container(keyedBy: WebField.self).galleryName(.name, new: true)
    }
}

/// `POST /api/items/move` `{"items", "to"?, "index"?}`: `move ITEM... [--to GALLERY]`; without
/// `to`, the gallery the items share (as the command line); without `index`, appended.
struct MoveBody: WebRequestBody {
    let items: [OpID]
    let to: String?
    let index: Int?
    var command: ControlCommand? { .move(items: items.map(ItemReference.id), to: to, at: index ?? 0) }

    init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: WebField.self)
        items = try body.itemIDs(.items)
        to = try body.optionalGalleryName(.to)
        index = try body.index()
    }
}

/// `POST /api/items/delete` `{"items"}`: `delete ITEM...` (to the Trash).
struct DeleteBody: WebRequestBody {
    let items: [OpID]
    var command: ControlCommand? { .delete(items.map(ItemReference.id)) }

    init(from decoder: any Decoder) throws {
        items = try decoder.container(keyedBy: WebField.self).itemIDs(.items)
    }
}

/// `POST /api/items/update` `{"item", "field", "value"}`: one field of one item, `title` or `url`
/// (text, or null to clear) or `aspectRatio` (a number); `update ITEM --title T | --aspect R`
/// for the two the command line sets.
struct UpdateBody: WebRequestBody {
    let item: OpID
    let field: ItemField
    let value: FieldValue
    var command: ControlCommand? {
        switch (field, value) {
        case (.title, .text(let title)): .update(UpdateRequest(item: .id(item), title: title))
        case (.aspectRatio, .number(let aspect)): .update(UpdateRequest(item: .id(item), aspect: aspect))
        default: nil
        }
    }

    init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: WebField.self)
        item = try body.itemID(.item)
        let name: String = try body.required(.field, "title, url or aspectRatio")
        switch name {
        case "title", "url":
            field = name == "title" ? .title : .url
            value = (try body.optional(.value, "text or null") as String?).map(FieldValue.text) ?? .none
        case "aspectRatio":
            field = .aspectRatio
            value = .number(try body.required(.value, "a number"))
        default:
            throw WebBodyError.invalid(.field, "field: fields are title, url (text) and aspectRatio (a number), not \"\(name.prefix(80))\"")
        }
        try WebRules.fieldValue(value, for: field, .value)
    }
}

/// `POST /api/items/add-url` `{"url", "to"?, "index"?, "title"?, "aspectRatio"?}`: `add URL
/// [--to G] [--at I] [--title T] [--aspect R]`, http: and https: only.
struct AddURLBody: WebRequestBody {
    let url: String
    let to: String?
    let index: Int?
    let title: String?
    let aspectRatio: Double?
    var request: AddRequest { AddRequest(sources: [.url(url)], gallery: to, index: index, title: title, aspect: aspectRatio) }
    var command: ControlCommand? { .add(request) }

    init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: WebField.self)
        url = try body.required(.url, "an http: or https: URL (text)")
        let lower = url.prefix(8).lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { throw WebBodyError.invalid(.url, "only http: and https: URLs") }
        try WebRules.fieldValue(.text(url), for: .url, .url)
        to = try body.optionalGalleryName(.to)
        index = try body.index()
        title = try body.optional(.title, "text")
        if let title { try WebRules.fieldValue(.text(title), for: .title, .title) }
        aspectRatio = try body.optional(.aspectRatio, "a number")
        if let aspectRatio { try WebRules.fieldValue(.number(aspectRatio), for: .aspectRatio, .aspectRatio) }
    }
}

/// `POST /api/transfers/cancel` `{"transfer"}`: `cancel TRANSFER`.
struct CancelTransferBody: WebRequestBody {
    let transfer: OpID
    var command: ControlCommand? { .cancel([transfer]) }

    init(from decoder: any Decoder) throws {
        transfer = try decoder.container(keyedBy: WebField.self).itemID(.transfer)
    }
}

/// `POST /api/items/restore` `{"items"}`: `restore ITEM...`.
struct RestoreBody: WebRequestBody {
    let items: [OpID]
    var command: ControlCommand? { .restore(items.map(ItemReference.id)) }

    init(from decoder: any Decoder) throws {
        items = try decoder.container(keyedBy: WebField.self).itemIDs(.items)
    }
}

/// `POST /api/trash/empty` `{}` or `{"items"}`: `empty-trash [ITEM...]` (all of the Trash without items).
struct EmptyTrashBody: WebRequestBody {
    let items: [OpID]?
    var command: ControlCommand? { .emptyTrash((items ?? []).map(ItemReference.id)) }

    init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: WebField.self)
        let texts: [String]? = try body.optional(.items, "a list of item IDs (COUNTER@REPLICA)")
        items = try texts.map { try WebRules.itemIDs($0, .items) }
    }
}

/// `POST /api/galleries/rename` `{"gallery", "name"}`: `rename-gallery NAME NEW-NAME`.
struct RenameGalleryBody: WebRequestBody {
    let gallery: String
    let name: String
    var command: ControlCommand? { .renameGallery(gallery, to: name) }

    init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: WebField.self)
        gallery = try body.galleryName(.gallery)
        name = try body.galleryName(.name, new: true)
    }
}

/// `POST /api/galleries/delete` `{"gallery"}`: `delete-gallery NAME`.
struct DeleteGalleryBody: WebRequestBody {
    let gallery: String
    var command: ControlCommand? { .deleteGallery(gallery) }

    init(from decoder: any Decoder) throws {
        gallery = try decoder.container(keyedBy: WebField.self).galleryName(.gallery)
    }
}

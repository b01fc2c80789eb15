import GalleryModel
import GalleryNode
import GalleryWire

// The bodies of undo, membership, uploads and drops (http-api.md section 5), one type per route.

/// `POST /api/undo` `{"entry", "redo"?}`: an entry of the node's undo journal (the page's own).
struct UndoBody: WebRequestBody {
    let entry: Int
    let redo: Bool

    init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: WebField.self)
        entry = try body.required(.entry, "the number an action answered as undo")
        redo = try body.optional(.redo, "true or false") ?? false
    }
}

/// `POST /api/invite` `{"expires"?}`: `invite [--expires SECONDS]`, the same bound.
struct InviteBody: WebRequestBody {
    let expires: UInt64
    var command: ControlCommand? { .invite(seconds: expires) }

    init(from decoder: any Decoder) throws {
        let range = ControlCommand.invitationSeconds
        let expected = "a number of seconds from \(range.lowerBound) to \(range.upperBound)"
        let body = try decoder.container(keyedBy: WebField.self)
        expires = try body.optional(.expires, expected) ?? ControlCommand.defaultInvitationSeconds
        guard range.contains(expires) else { throw WebBodyError.invalid(.expires, "expires must be \(expected)") }
    }
}

/// `POST /api/members/revoke` `{"node"}`: `revoke NODE-ID|NAME`.
struct RevokeBody: WebRequestBody {
    let node: String
    var command: ControlCommand? { .revoke(node: node) }

    init(from decoder: any Decoder) throws {
        node = try decoder.container(keyedBy: WebField.self).required(.node, "a member's node ID or name (text)")
        if let problem = ControlCommand.revoke(node: node).boundsProblem { throw WebBodyError.invalid(.node, problem) }
    }
}

/// `POST /api/uploads` `{"to", "index"?, "files": [{"name", "size", "mediaType"}]}`: the files
/// about to be uploaded (the web's own action: the command line adds files from disk).
struct AnnounceUploadsBody: WebRequestBody {
    let to: String
    let index: Int?
    let files: [Upload.File]

    /// One announced file.
    private struct File: Decodable {
        let name: String
        let size: Int
        let mediaType: String
    }

    init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: WebField.self)
        let announced: [File] = try body.required(.files, "a list of {name (text), size (a whole number), mediaType (text)}")
        guard !announced.isEmpty, announced.count <= ControlCommand.maximumBatchItems else {
            throw WebBodyError.invalid(.files, "files: announce 1 to \(ControlCommand.maximumBatchItems) files (\(announced.count) given)")
        }
        files = announced.map { Upload.File(name: $0.name, size: $0.size, mediaType: $0.mediaType) }
        to = try body.galleryName(.to)
        index = try body.index()
    }
}

/// `POST /api/drops` `{"descriptor", "to", "index"?, "operation"?}`: the drag's descriptor
/// (http-api.md section 7), carried out as `drag ITEM... --to GALLERY [--at INDEX] [--move]`.
struct DropBody: WebRequestBody {
    let space: String
    /// The dragged gallery when a whole one was dragged.
    let wholeGallery: String?
    let items: [OpID]
    let to: String
    let index: Int?
    let move: Bool
    var request: DragRequest { DragRequest(items: items.map { .item(.id($0)) }, gallery: to, index: index, move: move) }
    var command: ControlCommand? { .drag(request) }

    /// What the descriptor carries of each item: its ID.
    private struct Dragged: Decodable {
        let id: String
    }

    init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: WebField.self)
        let expected = "a drag descriptor {space, items: [{id}], gallery?, wholeGallery?}"
        let descriptor: KeyedDecodingContainer<WebField>
        do {
            descriptor = try body.nestedContainer(keyedBy: WebField.self, forKey: .descriptor)
        } catch Swift.DecodingError.keyNotFound, Swift.DecodingError.valueNotFound {
            throw WebBodyError.missing(.descriptor)
        } catch {
            throw WebBodyError.wrongType(.descriptor, expected: expected)
        }
        do {
            space = try descriptor.required(.space, "text")
            let dragged: [Dragged] = try descriptor.required(.items, "a list of {id}")
            items = try WebRules.itemIDs(dragged.map(\.id), .items)
            let whole: Bool = try descriptor.optional(.wholeGallery, "true or false") ?? false
            let gallery: String? = try descriptor.optional(.gallery, "text")
            wholeGallery = whole ? gallery : nil
        } catch let error as WebBodyError {
            throw WebBodyError.invalid(.descriptor, "descriptor: \(error.description)")
        }
        to = try body.galleryName(.to)
        index = try body.index()
        let operation: String = try body.optional(.operation, "copy or move") ?? "copy"
        guard operation == "copy" || operation == "move" else { throw WebBodyError.invalid(.operation, "operation is copy or move") }
        move = operation == "move"
    }
}

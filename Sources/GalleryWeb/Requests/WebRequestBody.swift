import Foundation
import GalleryModel
import GalleryWire

/// The typed body of one changing route (http-api.md section 5): decoded from JSON with one rule
/// per field, each refusal a `WebBodyError` naming the field (400), before anything is done.
protocol WebRequestBody: Decodable, Sendable {
    /// The `gallery -C DIR` command that does the same, when the command line has the action:
    /// its checks (`ControlCommands.check`, the rules of `FieldLimits`) are the web's too.
    var command: ControlCommand? { get }
}

extension WebRequestBody {
    var command: ControlCommand? { nil }

    /// `body` decoded: a refusal naming the field for a missing one, one of the wrong type or one
    /// that breaks its rule; `malformed` for anything that is not a JSON object.
    static func decode(_ body: [UInt8]) throws(WebBodyError) -> Self {
        do {
            return try JSONDecoder().decode(Self.self, from: Data(body))
        } catch let error as WebBodyError {
            throw error
        } catch {
            throw .malformed
        }
    }
}

/// The reading of fields: each the same way in every request type.
extension KeyedDecodingContainer where Key == WebField {
    /// A field that must be present and not null.
    func required<T: Decodable>(_ field: WebField, _ expected: String) throws -> T {
        guard let value: T = try optional(field, expected) else { throw WebBodyError.missing(field) }
        return value
    }

    /// A field that may be absent or null (nil).
    func optional<T: Decodable>(_ field: WebField, _ expected: String) throws -> T? {
        do {
            return try decodeIfPresent(T.self, forKey: field)
        } catch let error as WebBodyError {
            throw error
        } catch {
            throw WebBodyError.wrongType(field, expected: expected)
        }
    }

    /// A gallery name: text within `FieldLimits`' rule for names (`new` for a name a person gives).
    func galleryName(_ field: WebField, new: Bool = false) throws -> String {
        let name: String = try required(field, "a gallery name (text)")
        return try WebRules.galleryName(name, field, new: new)
    }

    /// An optional gallery name (absent or null: nil).
    func optionalGalleryName(_ field: WebField) throws -> String? {
        guard let name: String = try optional(field, "a gallery name (text)") else { return nil }
        return try WebRules.galleryName(name, field, new: false)
    }

    /// 1 to `ControlCommand.maximumBatchItems` item IDs, `COUNTER@REPLICA`.
    func itemIDs(_ field: WebField) throws -> [OpID] {
        let texts: [String] = try required(field, "a list of item IDs (COUNTER@REPLICA)")
        return try WebRules.itemIDs(texts, field)
    }

    /// One item ID.
    func itemID(_ field: WebField) throws -> OpID {
        let text: String = try required(field, "an item ID (COUNTER@REPLICA)")
        guard let id = OpID(text) else { throw WebBodyError.invalid(field, "\(field.rawValue): \"\(text.prefix(80))\" is not an item ID (COUNTER@REPLICA)") }
        return id
    }

    /// `index`: a whole number, when given.
    func index() throws -> Int? {
        try optional(.index, "a whole number")
    }
}

/// The rules of the web's fields that the command line shares: each is the application layer's
/// (`FieldLimits`, `ControlCommand`), never a copy.
enum WebRules {
    /// A gallery name within `FieldLimits.problem(withGalleryName:)` (`new`: also
    /// `problem(withNewGalleryName:)`, the rule of `new-gallery` and `rename-gallery`).
    static func galleryName(_ name: String, _ field: WebField, new: Bool) throws(WebBodyError) -> String {
        if let problem = new ? FieldLimits.problem(withNewGalleryName: name) : FieldLimits.problem(withGalleryName: name) {
            throw .outOfBounds(field, problem)
        }
        return name
    }

    /// Item IDs: 1 to `ControlCommand.maximumBatchItems` (the command line's batch bound), each `COUNTER@REPLICA`.
    static func itemIDs(_ texts: [String], _ field: WebField) throws(WebBodyError) -> [OpID] {
        guard !texts.isEmpty, texts.count <= ControlCommand.maximumBatchItems else {
            throw .invalid(field, "\(field.rawValue): name 1 to \(ControlCommand.maximumBatchItems) items (\(texts.count) given)")
        }
        var ids: [OpID] = []
        ids.reserveCapacity(texts.count)
        for (index, text) in texts.enumerated() {
            guard let id = OpID(text) else {
                throw .invalid(field, "\(field.rawValue)[\(index)]: \"\(text.prefix(80))\" is not an item ID (COUNTER@REPLICA)")
            }
            ids.append(id)
        }
        return ids
    }

    /// A field value within `FieldLimits.problem(with:for:)`.
    static func fieldValue(_ value: FieldValue, for itemField: ItemField, _ field: WebField) throws(WebBodyError) {
        if let problem = FieldLimits.problem(with: value, for: itemField) { throw .outOfBounds(field, problem) }
    }
}

extension WebRoute.Change {
    /// The type its JSON body is decoded into: one per changing route.
    var bodyType: any WebRequestBody.Type {
        switch self {
        case .newGallery: NewGalleryBody.self
        case .move: MoveBody.self
        case .delete: DeleteBody.self
        case .update: UpdateBody.self
        case .addURL: AddURLBody.self
        case .cancelTransfer: CancelTransferBody.self
        case .announceUploads: AnnounceUploadsBody.self
        case .drop: DropBody.self
        case .restore: RestoreBody.self
        case .emptyTrash: EmptyTrashBody.self
        case .renameGallery: RenameGalleryBody.self
        case .deleteGallery: DeleteGalleryBody.self
        case .undo: UndoBody.self
        case .invite: InviteBody.self
        case .revoke: RevokeBody.self
        }
    }
}

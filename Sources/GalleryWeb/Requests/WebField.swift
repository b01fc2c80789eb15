import Foundation
import GalleryNode

/// A member of a request body of http-api.md section 5: the coding key of every request type
/// (`WebRequestBody`), and the field a refusal of the body names (`WebBodyError`) with its `error` code.
enum WebField: String, CodingKey, CaseIterable, Sendable {
    case name, gallery, to, index, items, item, transfer, field, value, url, title, aspectRatio
    case files, size, mediaType, descriptor, space, wholeGallery, id, operation, entry, redo, expires, node

    /// The `error` code of a refusal of this field: one code per kind of value, the codes
    /// http-api.md documents (a gallery name is `badName` wherever it stands, as for the CLI).
    var code: String {
        switch self {
        case .name, .gallery, .to: "badName"
        case .index: "badIndex"
        case .items, .item, .transfer: "badItems"
        case .field, .value, .title, .aspectRatio: "badField"
        case .url: "badURL"
        case .files, .size, .mediaType: "badFiles"
        case .descriptor, .space, .wholeGallery, .id, .operation: "badDescriptor"
        case .entry, .redo: "badEntry"
        case .expires: "badExpiry"
        case .node: "badNode"
        }
    }
}

/// Why a request body was refused before anything was done: always a 400 naming the field
/// (`{"error": CODE, "field": FIELD, "message": ...}`), never the node's failure.
enum WebBodyError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// Not JSON, or not a JSON object: 400 `badJSON`.
    case malformed
    /// A required field is absent or null.
    case missing(WebField)
    /// A field holds a value of another JSON type: what it must be.
    case wrongType(WebField, expected: String)
    /// A field's value is of the right type but breaks its rule: the rule's reason.
    case invalid(WebField, String)
    /// A value outside `FieldLimits` (a name, a title or URL too long): the rule's reason, the
    /// line the command line prints; coded as `ActionError`'s cases are (`badName`, `badField`).
    case outOfBounds(WebField, String)

    /// The field named, nil for a malformed body.
    var field: WebField? {
        switch self {
        case .malformed: nil
        case .missing(let field), .wrongType(let field, _), .invalid(let field, _), .outOfBounds(let field, _): field
        }
    }

    /// The `error` code: `badJSON`, the field's, or for a value outside `FieldLimits` the code of
    /// `ActionError`'s case for it (`WebRefusal.statusAndCode`): one code per error case.
    var code: String {
        switch self {
        case .malformed: "badJSON"
        case .outOfBounds(let field, let reason):
            WebRefusal.statusAndCode(of: [.name, .gallery, .to].contains(field) ? .badGalleryName(reason) : .outOfBounds(reason)).1
        case .missing(let field), .wrongType(let field, _), .invalid(let field, _): field.code
        }
    }

    var description: String {
        switch self {
        case .malformed: "the body is not a JSON object"
        case .missing(let field): "\(field.rawValue) is missing"
        case .wrongType(let field, let expected): "\(field.rawValue) must be \(expected)"
        case .invalid(_, let reason), .outOfBounds(_, let reason): reason
        }
    }

    var errorDescription: String? { description }
}

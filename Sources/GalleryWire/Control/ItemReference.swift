import Foundation
import GalleryModel

/// An item named in a command: by its ID (`COUNTER@REPLICA`) or by where it stands
/// (`GALLERY:INDEX`, the last colon separating the gallery from the index). A place is resolved by
/// the node when it carries the command out (GalleryNode's `ItemReference.resolve(in:)`), so that
/// every reference of a command means the same listing.
///
/// In JSON it is the string the user typed.
package enum ItemReference: Hashable, Sendable, CustomStringConvertible {
    /// The item with this ID.
    case id(OpID)
    /// The item at `index` of `gallery`.
    case position(gallery: String, index: Int)

    /// Parses `COUNTER@REPLICA` or `GALLERY:INDEX`; nil for anything else.
    package init?(_ text: String) {
        if let id = OpID(text) {
            self = .id(id)
            return
        }
        guard let colon = text.lastIndex(of: ":"), let index = Int(text[text.index(after: colon)...]) else { return nil }
        self = .position(gallery: String(text[..<colon]), index: index)
    }

    /// The text it was parsed from (`COUNTER@REPLICA` or `GALLERY:INDEX`).
    package var description: String {
        switch self {
        case .id(let id): id.description
        case .position(let gallery, let index): "\(gallery):\(index)"
        }
    }

    /// Why `text` names no item, for error messages.
    package static func problem(with text: String) -> String {
        "\"\(text)\" is neither an item ID (COUNTER@REPLICA) nor GALLERY:INDEX"
    }
}

extension ItemReference: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let reference = ItemReference(text) else {
            throw Swift.DecodingError.dataCorruptedError(in: container, debugDescription: Self.problem(with: text))
        }
        self = reference
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// What `drag` takes: one item, or a whole gallery (all its items, in order).
///
/// In JSON it is the string the user typed: an item reference when it parses as one, a gallery's
/// name otherwise. A text that is both a gallery's name and `GALLERY:INDEX` (a gallery named
/// `a:1`) names the gallery when the node has one of that name.
package enum DragSource: Hashable, Sendable, CustomStringConvertible {
    /// One item.
    case item(ItemReference)
    /// Every item of the gallery of this name.
    case gallery(String)

    /// An item reference if `text` parses as one, else a gallery's name.
    package init(_ text: String) {
        self = ItemReference(text).map(DragSource.item) ?? .gallery(text)
    }

    /// The text it was parsed from.
    package var description: String {
        switch self {
        case .item(let reference): reference.description
        case .gallery(let name): name
        }
    }
}

extension DragSource: Codable {
    package init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

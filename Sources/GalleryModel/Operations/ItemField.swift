/// A metadata field of an item; each field is its own last-writer-wins register.
package enum ItemField: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    /// Human-readable title (a file name, or the simulator's label). Text.
    case title = 1
    /// Where the image lives when it is kept by reference. Text.
    case url = 2
    /// Width divided by height. Number.
    case aspectRatio = 3
    /// SHA-256 of the image bytes, lowercase hex. Text.
    case contentHash = 4
    /// Size of the image bytes. Integer.
    case byteSize = 5
    /// Media type such as `image/png`. Text.
    case mediaType = 6
    /// The item this one was copied or transferred from. Op ID.
    case origin = 7
    /// When the item was moved to the Trash, in Unix milliseconds of the node that moved it; unset
    /// (`.none`) when it is not in the Trash. Integer. Its own last-writer-wins register, so that
    /// a move or an edit concurrent with a move to the Trash leaves the item in the Trash with the
    /// edit applied (docs/design.md, "Trash").
    case trashed = 8

    /// The name used on the command line and in JSON.
    package var description: String {
        switch self {
        case .title: "title"
        case .url: "url"
        case .aspectRatio: "aspectRatio"
        case .contentHash: "contentHash"
        case .byteSize: "byteSize"
        case .mediaType: "mediaType"
        case .origin: "origin"
        case .trashed: "trashed"
        }
    }

    /// Looks a field up by its `description`.
    package init?(name: String) {
        guard let field = ItemField.allCases.first(where: { $0.description == name }) else { return nil }
        self = field
    }

    /// Whether `value` has the type this field holds (`.none` clears any field).
    package func accepts(_ value: FieldValue) -> Bool {
        switch (self, value) {
        case (_, .none): true
        case (.title, .text), (.url, .text), (.contentHash, .text), (.mediaType, .text): true
        case (.aspectRatio, .number): true
        case (.byteSize, .integer), (.trashed, .integer): true
        case (.origin, .id): true
        default: false
        }
    }
}

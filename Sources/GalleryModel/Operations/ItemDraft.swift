/// What an `insert` op says about one new item: whether it is a placeholder, and its initial fields.
package struct ItemDraft: Hashable, Sendable {
    /// A placeholder stands where an item will be once its bytes arrive; `commit` makes it ready.
    package var isPlaceholder: Bool
    /// Initial field values, keyed by field; absent fields are unset.
    package var fields: [ItemField: FieldValue]

    /// Creates a draft.
    package init(isPlaceholder: Bool = false, fields: [ItemField: FieldValue] = [:]) {
        self.isPlaceholder = isPlaceholder
        self.fields = fields.filter { $0.value != .none }
    }

    /// A ready item with only a title.
    package static func titled(_ title: String) -> ItemDraft {
        ItemDraft(fields: [.title: .text(title)])
    }

    /// A placeholder with only a title.
    package static func placeholder(_ title: String) -> ItemDraft {
        ItemDraft(isPlaceholder: true, fields: [.title: .text(title)])
    }
}

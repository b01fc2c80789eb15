/// `update`: new values for fields of one item.
///
/// JSON: `{"item": ITEM, "title"?: T, "aspect"?: R}`, at least one of the two.
package struct UpdateRequest: Codable, Hashable, Sendable {
    /// The item.
    package var item: ItemReference
    /// Its new title.
    package var title: String?
    /// Its new aspect ratio, width / height.
    package var aspect: Double?

    package init(item: ItemReference, title: String? = nil, aspect: Double? = nil) {
        self.item = item
        self.title = title
        self.aspect = aspect
    }

    /// Why a value is outside `FieldLimits`, or nil.
    package var boundsProblem: String? {
        ItemFieldValues(title: title, aspect: aspect).boundsProblem
    }
}

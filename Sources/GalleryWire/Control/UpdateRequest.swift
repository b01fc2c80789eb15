/// `update`: new values for fields of one item.
///
/// JSON: `{"item": ITEM, "title"?: T, "aspect"?: R}`, at least one of the two.
public struct UpdateRequest: Codable, Hashable, Sendable {
    /// The item.
    public var item: ItemReference
    /// Its new title.
    public var title: String?
    /// Its new aspect ratio, width / height.
    public var aspect: Double?

    public init(item: ItemReference, title: String? = nil, aspect: Double? = nil) {
        self.item = item
        self.title = title
        self.aspect = aspect
    }

    /// Why a value is outside `FieldLimits`, or nil.
    public var boundsProblem: String? {
        ItemFieldValues(title: title, aspect: aspect).boundsProblem
    }
}

/// `update`: new values for fields of items, the same for each.
///
/// JSON: `{"item": ITEM, "title"?: T, "aspect"?: R}`, at least one of the two; `"items": [ITEM]`
/// in place of `item` for several items.
package struct UpdateRequest: Codable, Hashable, Sendable {
    /// The items, at least one.
    package var items: [ItemReference]
    /// Their new title.
    package var title: String?
    /// Their new aspect ratio, width / height.
    package var aspect: Double?

    package init(items: [ItemReference], title: String? = nil, aspect: Double? = nil) {
        self.items = items
        self.title = title
        self.aspect = aspect
    }

    /// One item's update.
    package init(item: ItemReference, title: String? = nil, aspect: Double? = nil) {
        self.init(items: [item], title: title, aspect: aspect)
    }

    /// Why a value is outside `FieldLimits`, or nil.
    package var boundsProblem: String? {
        ItemFieldValues(title: title, aspect: aspect).boundsProblem
    }

    private enum CodingKeys: String, CodingKey {
        case items, item, title, aspect
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = try container.decodeIfPresent([ItemReference].self, forKey: .items)
            ?? [try container.decode(ItemReference.self, forKey: .item)]
        title = try container.decodeIfPresent(String.self, forKey: .title)
        aspect = try container.decodeIfPresent(Double.self, forKey: .aspect)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if items.count == 1 {
            try container.encode(items[0], forKey: .item)
        } else {
            try container.encode(items, forKey: .items)
        }
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(aspect, forKey: .aspect)
    }
}

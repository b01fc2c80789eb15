import Foundation
import GalleryModel

/// A node's `list --json` of every gallery, parsed, with a canonical form (progress left out) to
/// compare nodes.
struct ChaosListing: Sendable {
    /// One listed item.
    struct Item: Sendable {
        var id: String
        var gallery: String
        var index: Int
        var state: String
        var title: String?
        var hash: String?
        var bytes: Int?
    }

    /// Gallery names, in the listing's order.
    var galleries: [String]
    /// Every item of every gallery, gallery by gallery.
    var items: [Item]
    /// The JSON without `progress`, keys sorted: equal on nodes that show the same galleries.
    var canonical: String

    /// Parses the output of `list --json` (no gallery named); nil when it is not that.
    init?(json: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let galleries = object["galleries"] as? [[String: Any]] else { return nil }
        var names: [String] = []
        var items: [Item] = []
        var stripped: [[String: Any]] = []
        for gallery in galleries {
            guard let name = gallery["gallery"] as? String, let listed = gallery["items"] as? [[String: Any]] else { return nil }
            names.append(name)
            var kept: [[String: Any]] = []
            for (index, item) in listed.enumerated() {
                guard let id = item["id"] as? String, let state = item["state"] as? String else { return nil }
                items.append(Item(
                    id: id, gallery: name, index: index, state: state, title: item["title"] as? String,
                    hash: item["hash"] as? String, bytes: item["bytes"] as? Int))
                var copy = item
                copy["progress"] = nil
                kept.append(copy)
            }
            stripped.append(["gallery": name, "items": kept])
        }
        guard let data = try? JSONSerialization.data(withJSONObject: stripped, options: [.sortedKeys]) else { return nil }
        self.galleries = names
        self.items = items
        self.canonical = String(decoding: data, as: UTF8.self)
    }

    /// The items by ID (the first place of an ID listed twice).
    var byID: [String: Item] {
        Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The number of items in a gallery.
    func count(in gallery: String) -> Int {
        items.filter { $0.gallery == gallery }.count
    }
}

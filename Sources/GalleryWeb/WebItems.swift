import Foundation
import GalleryHTTP
import GalleryWire

/// The JSON of items as http-api.md section 1 defines ITEM: the keys of `list --json`, every one
/// present, unset ones null.
enum WebItems {
    /// ITEM for one listing.
    static func json(_ item: ItemListing) -> WebJSON {
        [
            "id": .string(item.id), "title": WebJSON(item.title), "state": .string(item.state), "hash": WebJSON(item.hash),
            "bytes": WebJSON(item.bytes), "mediaType": WebJSON(item.mediaType),
            "aspectRatio": WebJSON(item.aspectRatio), "url": WebJSON(item.url),
            "progress": item.progress.map { ["done": WebJSON($0.done), "total": WebJSON($0.total)] } ?? .null,
        ]
    }

    /// The answer to `GET /api/galleries/NAME/items` (http-api.md section 4).
    struct Listing: Encodable {
        let gallery: String
        let items: [ItemListing]
        let lastEventId: Int
        /// The gallery's number of items when `items` is its first `limit` only (`?limit=N`).
        var total: Int? = nil
    }

    /// The most items `?limit=N` asks for: more is the whole list's work, not a first screen's.
    static let maximumLimit = 100_000

    /// The `limit` of an items request: nil without one.
    ///
    /// - Throws: 400 `badLimit` for one that is not a whole number from 1 to `maximumLimit`.
    static func limit(in query: HTTPQuery) throws -> Int? {
        guard let text = query["limit"] else { return nil }
        guard text.utf8.count <= 6, let limit = Int(text), (1...maximumLimit).contains(limit) else {
            throw WebRefusal(400, "badLimit", "limit must be a whole number from 1 to \(maximumLimit)")
        }
        return limit
    }
}

import Foundation
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
    }
}

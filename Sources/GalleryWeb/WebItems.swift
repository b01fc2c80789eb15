import Foundation
import GalleryWire

/// The JSON of items as http-api.md section 1 defines ITEM: the keys of `list --json`, every one
/// present, unset ones null.
enum WebItems {
    /// ITEM for one listing.
    static func json(_ item: ItemListing) -> [String: Any] {
        [
            "id": item.id, "title": item.title ?? NSNull(), "state": item.state, "hash": item.hash ?? NSNull(),
            "bytes": item.bytes ?? NSNull(), "mediaType": item.mediaType ?? NSNull(),
            "aspectRatio": item.aspectRatio ?? NSNull(), "url": item.url ?? NSNull(),
            "progress": item.progress.map { ["done": $0.done, "total": $0.total] } ?? NSNull(),
        ]
    }

    /// The answer to `GET /api/galleries/NAME/items` (http-api.md section 4).
    struct Listing: Encodable {
        let gallery: String
        let items: [ItemListing]
        let lastEventId: Int
    }
}

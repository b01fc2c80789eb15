/// One gallery as `list --json` prints it.
package struct GalleryListing: Codable, Hashable, Sendable {
    /// The gallery's name.
    package var gallery: String
    /// Its items in order (empty in the answer to `galleries`).
    package var items: [ItemListing]

    package init(gallery: String, items: [ItemListing]) {
        self.gallery = gallery
        self.items = items
    }
}

/// One gallery as `list --json` prints it.
public struct GalleryListing: Codable, Hashable, Sendable {
    /// The gallery's name.
    public var gallery: String
    /// Its items in order (empty in the answer to `galleries`).
    public var items: [ItemListing]

    public init(gallery: String, items: [ItemListing]) {
        self.gallery = gallery
        self.items = items
    }
}

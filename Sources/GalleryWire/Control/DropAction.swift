/// What a drop did with one dragged item (`DropListing.action`).
package enum DropAction: String, Codable, Hashable, Sendable, CaseIterable {
    /// A local `--move`: the item itself left its place.
    case moved
    /// A local `--copy`: a copy was inserted.
    case copied
    /// A placeholder was inserted; a transfer fetches the bytes.
    case placeholder
    /// A placeholder resolved at once: its bytes were here.
    case committed
}

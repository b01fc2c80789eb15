/// The thumbnails a node makes of every picture, by their long edge in pixels (never larger than
/// the picture itself): the grid's and the viewer's.
package enum ThumbnailSize: Int, CaseIterable, Sendable, Comparable {
    /// The grid's tiles.
    case small = 320
    /// The full-size viewer, shown while the original arrives.
    case large = 1280

    /// The size of a path segment or argument ("320", "1280"); nil for any other.
    package init?(text: some StringProtocol) {
        guard let value = Int(text), let size = ThumbnailSize(rawValue: value), String(value) == text else { return nil }
        self = size
    }

    package static func < (lhs: ThumbnailSize, rhs: ThumbnailSize) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

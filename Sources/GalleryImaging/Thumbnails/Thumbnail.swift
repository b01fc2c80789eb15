import Foundation

/// A thumbnail: JPEG bytes and its size, with the displayed size of the picture it was made from.
package struct Thumbnail: Sendable, Equatable {
    /// A baseline JPEG, already turned upright (no EXIF orientation left to apply).
    package let jpeg: Data
    package let width: Int
    package let height: Int
    /// The source picture's size as displayed (after its EXIF orientation).
    package let sourceWidth: Int
    package let sourceHeight: Int

    package init(jpeg: Data, width: Int, height: Int, sourceWidth: Int, sourceHeight: Int) {
        self.jpeg = jpeg
        self.width = width
        self.height = height
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
    }
}

/// EXIF Orientation (tag 0x0112): how the stored pixels must be turned for display. The raw
/// values are the tag's, 1-8.
package enum ImageOrientation: Int, Sendable, CaseIterable {
    /// 1: as stored.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: turned half a circle.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the main diagonal (transpose).
    case leftMirrored = 5
    /// 6: stored turned a quarter counterclockwise; displayed turned a quarter clockwise.
    case right = 6
    /// 7: mirrored along the other diagonal (transverse).
    case rightMirrored = 7
    /// 8: displayed turned a quarter counterclockwise.
    case left = 8

    /// Orientations 5-8 turn a quarter, so the displayed width is the stored height.
    package var swapsDimensions: Bool { rawValue >= 5 }

    /// The displayed size of a stored `width` x `height` image.
    package func displayedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }
}

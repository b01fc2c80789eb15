import Foundation
import GalleryImaging

/// The media type and displayed pixel size of an image, read from its header (PNG IHDR, GIF screen
/// descriptor, JPEG SOF marker and EXIF orientation) by `ImageProbe`, without decoding pixels.
package struct ImageHeader: Hashable, Sendable {
    /// `image/png`, `image/gif` or `image/jpeg`.
    package var mediaType: String
    /// The width as the picture is shown: a JPEG's EXIF orientation 5-8 swaps its stored sides.
    package var width: Int
    package var height: Int

    /// Width divided by height, as shown.
    package var aspectRatio: Double { Double(width) / Double(height) }

    /// Reads the header from the first bytes of a file (a JPEG's SOF may come after its metadata:
    /// pass up to 1 MiB); nil for other formats or a damaged header.
    package init?(_ bytes: [UInt8]) {
        let data = Data(bytes)
        guard let format = ImageFormat.detect(data), let size = try? ImageProbe.dimensions(of: data) else { return nil }
        let mediaType = switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        }
        self.init(mediaType: mediaType, width: size.width, height: size.height)
    }

    init(mediaType: String, width: Int, height: Int) {
        self.mediaType = mediaType
        self.width = width
        self.height = height
    }
}

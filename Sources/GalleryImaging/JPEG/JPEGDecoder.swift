import Foundation

/// Decodes baseline and progressive Huffman JPEGs (8-bit, gray or YCbCr/RGB, any integral
/// sampling) to a `RasterImage`, optionally at 1/2, 1/4 or 1/8 size straight from the DCT
/// coefficients, so a 24-megapixel photo never needs a full decode to make a thumbnail.
package enum JPEGDecoder {
    /// The scale denominators the reduced IDCTs support.
    package static let scaleDenominators = [1, 2, 4, 8]

    /// Decodes `data` at 1/`scaleDenominator` size (1, 2, 4 or 8): gray images come out with one
    /// channel, the rest with three (RGB). Every size is checked against `limits` before allocating.
    package static func decode(_ data: Data, scaleDenominator: Int = 1, limits: ImageLimits = .standard) throws(ImageError) -> RasterImage {
        guard scaleDenominators.contains(scaleDenominator) else {
            throw .unsupported("scale 1/\(scaleDenominator)")
        }
        let result: Result<RasterImage, ImageError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var session = JPEGDecodingSession(bytes: bytes, scaleDenominator: scaleDenominator, limits: limits)
            do throws(ImageError) {
                return .success(try session.run())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The frame size (as stored, before EXIF orientation) and component count, from the
    /// markers before the first scan: no entropy data is read.
    package static func frameSize(of data: Data) throws(ImageError) -> (width: Int, height: Int, components: Int) {
        var found: (Int, Int, Int)?
        try JPEGMarkers.walk(data) { marker, segment throws(ImageError) in
            guard JPEGMarkers.isFrame(marker) else { return true }
            guard segment.count >= 6 else { throw .truncated("frame header") }
            let height = Int(segment[1]) << 8 | Int(segment[2])
            let width = Int(segment[3]) << 8 | Int(segment[4])
            guard width > 0, height > 0 else { throw .malformed("zero image size") }
            found = (width, height, Int(segment[5]))
            return false
        }
        guard let found else { throw .malformed("no frame header") }
        return found
    }
}

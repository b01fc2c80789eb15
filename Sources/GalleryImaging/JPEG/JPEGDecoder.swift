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

/// The markers before the first scan, walked without decoding: for probing sizes and EXIF.
enum JPEGMarkers {
    static func isFrame(_ marker: UInt8) -> Bool {
        marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// Calls `visit` with each marker segment's type and body until it returns false, a scan
    /// starts or the image ends. Every length is checked against the data.
    static func walk(_ data: Data, _ visit: (UInt8, Data) throws(ImageError) -> Bool) throws(ImageError) {
        let start = data.startIndex
        guard data.count >= 4, data[start] == 0xFF, data[start + 1] == 0xD8 else { throw .unrecognizedFormat }
        var position = 2
        while position < data.count {
            guard data[start + position] == 0xFF else {
                position += 1 // garbage between segments: skip to the next 0xFF, as libjpeg does
                continue
            }
            while position < data.count, data[start + position] == 0xFF { position += 1 }
            guard position < data.count else { break }
            let marker = data[start + position]
            position += 1
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            if marker == 0xD9 || marker == 0xDA { return }
            guard position + 2 <= data.count else { throw .truncated("marker length") }
            let length = Int(data[start + position]) << 8 | Int(data[start + position + 1])
            guard length >= 2, position + length <= data.count else { throw .truncated("marker segment") }
            let body = data[(start + position + 2)..<(start + position + length)]
            guard try visit(marker, Data(body)) else { return }
            position += length
        }
        throw .truncated("no scan")
    }
}

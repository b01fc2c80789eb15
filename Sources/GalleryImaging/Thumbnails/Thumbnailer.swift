import Foundation

/// Makes thumbnails of JPEG, PNG and GIF pictures: for a JPEG, decodes at the smallest DCT scale
/// that still covers the target (libvips' shrink-on-load), turns it upright by EXIF, resamples to
/// the long edge (never up) and encodes a JPEG.
package enum Thumbnailer {
    /// The JPEG quality of thumbnails: small files, no visible blocking at grid sizes.
    package static let quality = 82

    /// A thumbnail of `data` whose long edge is `longEdge` (or the picture's own, if smaller).
    package static func thumbnail(of data: Data, longEdge: Int, limits: ImageLimits = .standard) throws(ImageError) -> Thumbnail {
        guard longEdge > 0 else { throw .unsupported("thumbnail long edge \(longEdge)") }
        guard let format = ImageFormat.detect(data) else { throw .unrecognizedFormat }
        let upright: RasterImage
        let source: (width: Int, height: Int)
        switch format {
        case .jpeg:
            let frame = try JPEGDecoder.frameSize(of: data)
            let orientation = EXIFReader.orientation(ofJPEG: data)
            source = orientation.displayedSize(width: frame.width, height: frame.height)
            let denominator = scaleDenominator(width: frame.width, height: frame.height, longEdge: longEdge)
            let decoded = try JPEGDecoder.decode(data, scaleDenominator: denominator, limits: limits)
            // Resample before turning: the long edge is the same either way, and turning is cheaper small.
            upright = ImageResampler.fit(decoded, longEdge: longEdge).oriented(orientation)
        case .png:
            let decoded = try PNGDecoder.decode(data, limits: limits)
            source = (decoded.width, decoded.height)
            upright = ImageResampler.fit(decoded, longEdge: longEdge)
        case .gif:
            let decoded = try GIFDecoder.decodeFirstFrame(data, limits: limits)
            source = (decoded.width, decoded.height)
            upright = ImageResampler.fit(decoded, longEdge: longEdge)
        }
        let jpeg = JPEGEncoder.encode(upright, quality: quality)
        return Thumbnail(jpeg: jpeg, width: upright.width, height: upright.height, sourceWidth: source.width, sourceHeight: source.height)
    }

    /// The largest of 1, 2, 4, 8 whose scaled long edge is still at least `longEdge`, so the
    /// resampler always shrinks (never enlarges) what the IDCT made.
    package static func scaleDenominator(width: Int, height: Int, longEdge: Int) -> Int {
        let long = max(width, height)
        var chosen = 1
        for denominator in JPEGDecoder.scaleDenominators where (long + denominator - 1) / denominator >= longEdge {
            chosen = denominator
        }
        return chosen
    }
}

import Foundation

/// Several thumbnails of one picture from one decode: the grid's and the viewer's sizes cost one
/// entropy decode of a JPEG, not two.
extension Thumbnailer {
    /// Thumbnails of `data` at each of `longEdges` (each never larger than the picture), in the
    /// order asked. The picture is decoded once, for the largest edge (a JPEG at the smallest DCT
    /// scale that covers it); each smaller one is resampled from the next larger result.
    package static func thumbnails(of data: Data, longEdges: [Int], limits: ImageLimits = .standard) throws(ImageError) -> [Thumbnail] {
        guard let largest = longEdges.max(), let smallest = longEdges.min(), smallest > 0 else {
            throw .unsupported("thumbnail long edges \(longEdges)")
        }
        guard let format = ImageFormat.detect(data) else { throw .unrecognizedFormat }
        let decoded: RasterImage
        var orientation = ImageOrientation.up
        let source: (width: Int, height: Int)
        switch format {
        case .jpeg:
            let frame = try JPEGDecoder.frameSize(of: data)
            orientation = EXIFReader.orientation(ofJPEG: data)
            source = orientation.displayedSize(width: frame.width, height: frame.height)
            let denominator = scaleDenominator(width: frame.width, height: frame.height, longEdge: largest)
            decoded = try JPEGDecoder.decode(data, scaleDenominator: denominator, limits: limits)
        case .png:
            decoded = try PNGDecoder.decode(data, limits: limits)
            source = (decoded.width, decoded.height)
        case .gif:
            decoded = try GIFDecoder.decodeFirstFrame(data, limits: limits)
            source = (decoded.width, decoded.height)
        }
        var made: [Int: Thumbnail] = [:]
        var previous = decoded
        for edge in Set(longEdges).sorted(by: >) {
            // Resample before turning: the long edge is the same either way, and turning is cheaper small.
            previous = ImageResampler.fit(previous, longEdge: edge)
            let upright = previous.oriented(orientation)
            made[edge] = Thumbnail(
                jpeg: JPEGEncoder.encode(upright, quality: quality), width: upright.width, height: upright.height,
                sourceWidth: source.width, sourceHeight: source.height)
        }
        return longEdges.map { made[$0]! }
    }
}

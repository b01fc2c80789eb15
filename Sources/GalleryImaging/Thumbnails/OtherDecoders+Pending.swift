import Foundation

// Stand-ins until h-png's PNG and GIF decoders land on this branch: the lead deletes this file on merge.

/// Pending: replaced by h-png's PNG decoder.
enum PNGDecoder {
    static func decode(_ data: Data, limits: ImageLimits) throws(ImageError) -> RasterImage {
        throw .unsupported("PNG decoding is not on this branch yet")
    }
}

/// Pending: replaced by h-png's GIF decoder.
enum GIFDecoder {
    static func decodeFirstFrame(_ data: Data, limits: ImageLimits) throws(ImageError) -> RasterImage {
        throw .unsupported("GIF decoding is not on this branch yet")
    }
}

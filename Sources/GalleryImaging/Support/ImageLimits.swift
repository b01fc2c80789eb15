/// The bounds every decoder enforces before it allocates, so a hostile header (65535x65535, a
/// decompression bomb) costs an error, not the node's memory.
package struct ImageLimits: Sendable, Equatable {
    /// Pixels of the decoded raster (after any scaling done while decoding).
    package var maxDecodedPixels: Int
    /// Bytes any one decode may allocate for its working buffers.
    package var maxWorkingBytes: Int

    package init(maxDecodedPixels: Int = 64 << 20, maxWorkingBytes: Int = 256 << 20) {
        self.maxDecodedPixels = maxDecodedPixels
        self.maxWorkingBytes = maxWorkingBytes
    }

    /// The node's defaults: 64 megapixels after scaling, 256 MiB of working memory.
    package static let standard = ImageLimits()
}

import Foundation

/// Decodes PNG images (ISO/IEC 15948) into a `RasterImage`, with our own inflate.
///
/// ```swift
/// let image = try PNGDecoder.decode(data, limits: .standard)
/// ```
/// Every color type and bit depth, tRNS transparency, Adam7 interlacing, all five filters, and image
/// data split over any number of consecutive IDAT chunks. Output channels:
/// * 1 (gray) for gray without tRNS;
/// * 3 (RGB) for RGB and palette images without tRNS;
/// * 4 (RGBA) whenever there is alpha: gray+alpha and RGBA, and any image with a valid tRNS chunk
///   (gray+alpha and keyed gray are widened to RGBA, since `RasterImage` has no 2-channel form).
///
/// The pixels are the samples Chromium shows when it applies no colour management, checked exactly
/// against it (`ChromiumImageReference`, colour profiles ignored):
/// * 16-bit samples become 8-bit by keeping the high byte (Chromium 156 does this, not rounding);
///   tRNS keys are compared at full depth first.
/// * Gray below 8 bits is scaled by replication (1 bit: 0/255; 2 bits: ×85; 4 bits: ×17).
/// * gAMA, cHRM, sRGB, iCCP, sBIT and every other ancillary chunk are ignored: the pixels are the
///   file's samples, not a colour-managed rendering.
/// * A palette index past the palette reads the last entry, colour and alpha (Chromium 156; libpng
///   would give opaque black).
///
/// Strict where it matters: the signature, IHDR first and valid, PLTE where required, every chunk's
/// CRC, consecutive IDATs, unknown critical chunks (`.unsupported`), and the inflated size, which
/// must be exactly what the header declares. The pixel count and working memory are checked against
/// `limits` before any allocation that depends on the declared size; a missing IEND after complete
/// image data is accepted, as browsers do.
package enum PNGDecoder {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Whether `data` starts with the PNG signature.
    package static func matches(_ data: Data) -> Bool {
        data.count >= 8 && data.prefix(8).elementsEqual(signature)
    }

    /// The width and height from IHDR, reading nothing past it.
    /// - Throws: `.unrecognizedFormat` without the signature; `.truncated`/`.malformed` for a bad IHDR.
    package static func dimensions(of data: Data) throws(ImageError) -> (width: Int, height: Int) {
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) in
                guard bytes.count >= 8, bytes.prefix(8).elementsEqual(signature) else { throw .unrecognizedFormat }
                var chunks = PNGChunkReader(bytes, offset: 8)
                guard let first = try chunks.next() else { throw .truncated("no IHDR chunk") }
                guard first.type == .header else { throw .malformed("the first chunk is not IHDR") }
                let header = try PNGHeader(first.data)
                return (header.width, header.height)
            }
        }
        return try result.get()
    }

    /// Decodes the image in `data`.
    /// - Throws: `ImageError` for anything but a valid PNG within `limits`; never traps.
    package static func decode(_ data: Data, limits: ImageLimits) throws(ImageError) -> RasterImage {
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) in try decode(bytes, limits: limits) }
        }
        return try result.get()
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) -> RasterImage {
        guard bytes.count >= 8, bytes.prefix(8).elementsEqual(signature) else { throw .unrecognizedFormat }
        let stream = try PNGStream(bytes, limits: limits)
        let header = stream.header
        let inflatedBytes = header.inflatedBytes
        let layout = PNGPixelLayout(stream)
        let outputBytes = header.width * header.height * layout.outputChannels
        let working = stream.compressed.count + inflatedBytes + outputBytes
        guard working <= limits.maxWorkingBytes else {
            throw .tooLarge("decoding needs \(working) bytes, over the bound of \(limits.maxWorkingBytes)")
        }
        var inflated: [UInt8]
        do {
            inflated = try ZlibDecoder.decompress(stream.compressed, exactly: inflatedBytes)
        } catch .tooLarge {
            throw .malformed("the image data inflates to more than the \(inflatedBytes) bytes IHDR declares")
        }
        var pixels = [UInt8](repeating: 0, count: outputBytes)
        try inflated.withUnsafeMutableBufferPointer { (inflatedBuffer) throws(ImageError) in
            try pixels.withUnsafeMutableBufferPointer { (pixelBuffer) throws(ImageError) in
                let scanlines = UnsafeMutableRawBufferPointer(inflatedBuffer), output = UnsafeMutableRawBufferPointer(pixelBuffer)
                var offset = 0
                for pass in header.passes {
                    let rowBytes = header.rowBytes(pass.width)
                    let passBytes = UnsafeMutableRawBufferPointer(rebasing: scanlines[offset..<offset + pass.height * (rowBytes + 1)])
                    try PNGFilters.unfilter(passBytes, rowBytes: rowBytes, rows: pass.height, stride: header.filterStride)
                    layout.place(passBytes, pass: pass, rowBytes: rowBytes, into: output, imageWidth: header.width)
                    offset += pass.height * (rowBytes + 1)
                }
            }
        }
        return RasterImage(width: header.width, height: header.height, channels: layout.outputChannels, pixels: pixels)
    }
}

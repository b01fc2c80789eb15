import Foundation

/// Decodes the first frame of a GIF (87a or 89a) into RGBA on a transparent canvas.
///
/// ```swift
/// let image = try GIFDecoder.decodeFirstFrame(data, limits: .standard)   // always 4 channels
/// ```
/// Global and local color tables, LZW with code-size growth to 12 bits, clear and end codes and a
/// full table (deferred clear), interlaced frames, and the transparent index of the graphic control
/// extension before the frame. What the canvas looks like follows Chromium 156 (checked exactly with
/// `ChromiumImageReference`):
/// * the canvas is the logical screen, grown to hold the first frame when the frame reaches past it
///   (a 0x0 screen takes the frame's extent); pixels the frame does not cover are transparent;
/// * the background color is not painted; a transparent index leaves its pixels transparent;
/// * an index past the color table, or any index when there is no table at all, is opaque black.
/// Stricter than a browser: LZW data that ends before the frame is full is `.truncated` (a browser
/// shows the partial frame), and a code past the table is `.malformed`. Data after the frame's pixels
/// and everything after the first frame are not read.
package enum GIFDecoder {
    /// Whether `data` starts with "GIF87a" or "GIF89a".
    package static func matches(_ data: Data) -> Bool {
        data.count >= 6 && (data.prefix(6).elementsEqual("GIF87a".utf8) || data.prefix(6).elementsEqual("GIF89a".utf8))
    }

    /// The logical screen's size from the header (the first frame may still grow the canvas).
    package static func dimensions(of data: Data) throws(ImageError) -> (width: Int, height: Int) {
        guard matches(data) else { throw .unrecognizedFormat }
        guard data.count >= 10 else { throw .truncated("GIF logical screen descriptor") }
        let bytes = [UInt8](data.prefix(10))
        return (Int(bytes[6]) | Int(bytes[7]) << 8, Int(bytes[8]) | Int(bytes[9]) << 8)
    }

    /// Decodes the first frame, composited on a transparent canvas.
    /// - Throws: `ImageError` for anything but a GIF whose first frame decodes within `limits`.
    package static func decodeFirstFrame(_ data: Data, limits: ImageLimits) throws(ImageError) -> RasterImage {
        guard matches(data) else { throw .unrecognizedFormat }
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) in try decodeFirstFrame(bytes, limits: limits) }
        }
        return try result.get()
    }

    private static func decodeFirstFrame(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) -> RasterImage {
        var reader = GIFByteReader(bytes, offset: 6)
        let screenWidth = try reader.u16(), screenHeight = try reader.u16()
        let screenFlags = try reader.byte()
        _ = try reader.bytes(2)  // background index (not painted) and aspect ratio
        var globalTable: [UInt8] = []
        if screenFlags & 0x80 != 0 {
            globalTable = [UInt8](try reader.bytes(3 << (Int(screenFlags & 7) + 1)))
        }
        var transparentIndex: Int?
        while true {
            switch try reader.byte() {
            case 0x21:
                let label = try reader.byte()
                if label == 0xF9 {
                    let control = try reader.subBlock()
                    guard control.count >= 4 else { throw .malformed("GIF graphic control extension of \(control.count) bytes") }
                    transparentIndex = control[0] & 1 != 0 ? Int(control[3]) : nil
                }
                try reader.skipSubBlocks()
            case 0x2C:
                return try decodeImage(&reader, screen: (screenWidth, screenHeight), globalTable: globalTable,
                                       transparentIndex: transparentIndex, limits: limits)
            case 0x3B:
                throw .malformed("GIF has no image before its trailer")
            case let other:
                throw .malformed("GIF block introducer 0x\(String(other, radix: 16))")
            }
        }
    }

    private static func decodeImage(_ reader: inout GIFByteReader, screen: (Int, Int), globalTable: [UInt8],
                                    transparentIndex: Int?, limits: ImageLimits) throws(ImageError) -> RasterImage {
        let left = try reader.u16(), top = try reader.u16()
        let frameWidth = try reader.u16(), frameHeight = try reader.u16()
        let flags = try reader.byte()
        var table = globalTable
        if flags & 0x80 != 0 {
            table = [UInt8](try reader.bytes(3 << (Int(flags & 7) + 1)))
        }
        let interlaced = flags & 0x40 != 0
        // Chromium grows the canvas to the first frame's extent.
        let width = max(screen.0, left + frameWidth), height = max(screen.1, top + frameHeight)
        guard width > 0, height > 0 else { throw .malformed("GIF canvas of \(width)x\(height)") }
        guard width * height <= limits.maxDecodedPixels else {
            throw .tooLarge("\(width)x\(height) is over the bound of \(limits.maxDecodedPixels) pixels")
        }
        let working = width * height * 4 + frameWidth * frameHeight + reader.remaining
        guard working <= limits.maxWorkingBytes else {
            throw .tooLarge("decoding needs \(working) bytes, over the bound of \(limits.maxWorkingBytes)")
        }
        let minimumCodeSize = Int(try reader.byte())
        guard (1...11).contains(minimumCodeSize) else { throw .malformed("GIF LZW minimum code size \(minimumCodeSize)") }
        let compressed = try reader.joinedSubBlocks()
        let indices = try GIFLZWDecoder.decode(compressed, minimumCodeSize: minimumCodeSize, pixels: frameWidth * frameHeight)

        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var palette = [UInt8](repeating: 0, count: 256 * 4)
        for entry in 0..<256 {
            if entry * 3 + 2 < table.count {
                palette[entry * 4] = table[entry * 3]
                palette[entry * 4 + 1] = table[entry * 3 + 1]
                palette[entry * 4 + 2] = table[entry * 3 + 2]
            }
            palette[entry * 4 + 3] = entry == transparentIndex ? 0 : 255
        }
        let rows = interlaced ? interlacedRowOrder(frameHeight) : Array(0..<frameHeight)
        for (sourceRow, frameRow) in rows.enumerated() {
            let y = top + frameRow
            for x in 0..<frameWidth {
                let entry = Int(indices[sourceRow * frameWidth + x]) * 4
                guard palette[entry + 3] != 0 else { continue }
                let target = (y * width + left + x) * 4
                pixels[target] = palette[entry]
                pixels[target + 1] = palette[entry + 1]
                pixels[target + 2] = palette[entry + 2]
                pixels[target + 3] = 255
            }
        }
        return RasterImage(width: width, height: height, channels: 4, pixels: pixels)
    }

    /// The frame row of each row in the data: every 8th from 0, every 8th from 4, every 4th from 2,
    /// every 2nd from 1.
    static func interlacedRowOrder(_ height: Int) -> [Int] {
        Array(stride(from: 0, to: height, by: 8)) + Array(stride(from: 4, to: height, by: 8))
            + Array(stride(from: 2, to: height, by: 4)) + Array(stride(from: 1, to: height, by: 2))
    }
}

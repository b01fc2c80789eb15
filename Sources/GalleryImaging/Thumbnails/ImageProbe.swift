import Foundation

/// Cheap probing: a picture's displayed size from its headers alone, without decoding pixels.
package enum ImageProbe {
    /// The displayed width and height of `data` (a JPEG's EXIF orientation applied).
    package static func dimensions(of data: Data) throws(ImageError) -> (width: Int, height: Int) {
        guard let format = ImageFormat.detect(data) else { throw .unrecognizedFormat }
        let bytes = [UInt8](data.prefix(32))
        switch format {
        case .jpeg:
            let frame = try JPEGDecoder.frameSize(of: data)
            return EXIFReader.orientation(ofJPEG: data).displayedSize(width: frame.width, height: frame.height)
        case .png:
            // Signature, then the IHDR chunk: length, "IHDR", width and height big-endian.
            guard bytes.count >= 24, bytes[12...15].elementsEqual(Array("IHDR".utf8)) else { throw .truncated("PNG header") }
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
            guard width > 0, height > 0 else { throw .malformed("zero PNG size") }
            return (width, height)
        case .gif:
            // The logical screen descriptor after "GIF89a": width and height little-endian.
            guard bytes.count >= 10 else { throw .truncated("GIF header") }
            let width = Int(bytes[6]) | Int(bytes[7]) << 8, height = Int(bytes[8]) | Int(bytes[9]) << 8
            guard width > 0, height > 0 else { throw .malformed("zero GIF size") }
            return (width, height)
        }
    }
}

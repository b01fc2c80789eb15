import Foundation

/// Reads the Orientation tag from a JPEG's APP1 Exif segment: the TIFF header in either byte
/// order, then IFD0's entries, every offset checked against the payload. Damaged or hostile EXIF
/// is not an error for the picture: it just reads as `.up`.
package enum EXIFReader {
    static let orientationTag: UInt16 = 0x0112

    /// The orientation declared by the JPEG's first APP1 Exif segment, `.up` if none or unreadable.
    package static func orientation(ofJPEG data: Data) -> ImageOrientation {
        var found = ImageOrientation.up
        try? JPEGMarkers.walk(data) { marker, body throws(ImageError) in
            if marker == 0xE1, body.count > 6, body.prefix(6).elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
                found = orientation(ofTIFF: body.dropFirst(6))
                return false
            }
            // EXIF comes before the frame in any writer we know: stop at the frame header.
            return !JPEGMarkers.isFrame(marker)
        }
        return found
    }

    /// The orientation in a TIFF structure (an Exif payload after "Exif\0\0").
    package static func orientation(ofTIFF tiff: Data) -> ImageOrientation {
        let bytes = [UInt8](tiff)
        guard bytes.count >= 8 else { return .up }
        let little: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return .up
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), ifd >= 8, let count = u16(ifd) else { return .up }
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let values = u32(entry + 4) else { return .up }
            guard tag == Int(orientationTag) else { continue }
            // SHORT (3) is the tag's type; some writers use LONG (4). Either way one value, stored inline.
            guard values >= 1 else { return .up }
            let value: Int? = type == 3 ? u16(entry + 8) : (type == 4 ? u32(entry + 8) : nil)
            return value.flatMap(ImageOrientation.init(rawValue:)) ?? .up
        }
        return .up
    }
}

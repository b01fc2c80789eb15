/// The media type and pixel size of an image, read from its header (PNG IHDR, GIF screen
/// descriptor, JPEG SOF marker).
package struct ImageHeader: Hashable, Sendable {
    /// `image/png`, `image/gif` or `image/jpeg`.
    package var mediaType: String
    package var width: Int
    package var height: Int

    /// Width divided by height.
    package var aspectRatio: Double { Double(width) / Double(height) }

    /// Reads the header from the first bytes of a file (a JPEG's SOF may come after its metadata:
    /// pass up to 1 MiB); nil for other formats or a damaged header.
    package init?(_ bytes: [UInt8]) {
        if bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
           bytes[12..<16].elementsEqual(Array("IHDR".utf8)) {
            self.init(mediaType: "image/png", width: Self.bigEndian32(bytes, 16), height: Self.bigEndian32(bytes, 20))
        } else if bytes.count >= 10, bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            self.init(mediaType: "image/gif", width: Int(bytes[6]) | Int(bytes[7]) << 8,
                      height: Int(bytes[8]) | Int(bytes[9]) << 8)
        } else if bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 {
            guard let (width, height) = Self.jpegSize(bytes) else { return nil }
            self.init(mediaType: "image/jpeg", width: width, height: height)
        } else {
            return nil
        }
        guard width > 0, height > 0 else { return nil }
    }

    init(mediaType: String, width: Int, height: Int) {
        self.mediaType = mediaType
        self.width = width
        self.height = height
    }

    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> Int {
        Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    /// Walks the JPEG segments to the first start-of-frame marker.
    private static func jpegSize(_ bytes: [UInt8]) -> (Int, Int)? {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2 else { return nil }
            // SOF0-SOF15, except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard offset + 9 <= bytes.count else { return nil }
                let height = Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
                let width = Int(bytes[offset + 7]) << 8 | Int(bytes[offset + 8])
                return (width, height)
            }
            if marker == 0xDA || marker == 0xD9 { return nil }
            offset += 2 + length
        }
        return nil
    }
}

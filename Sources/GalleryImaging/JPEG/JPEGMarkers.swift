import Foundation

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

import Foundation

/// The image formats the node makes thumbnails of, told apart by their magic bytes.
package enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg
    case png
    case gif

    /// The format whose signature starts `data`, nil for anything else.
    package static func detect(_ data: Data) -> ImageFormat? {
        let head = [UInt8](data.prefix(8))
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if head.count >= 6, head.prefix(6).elementsEqual(Array("GIF87a".utf8)) || head.prefix(6).elementsEqual(Array("GIF89a".utf8)) {
            return .gif
        }
        return nil
    }
}

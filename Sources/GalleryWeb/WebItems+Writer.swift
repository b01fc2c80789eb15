import Foundation
import GalleryWire

/// The items answer (`GET /api/galleries/NAME/items`) written straight into bytes: the same JSON
/// as `JSONEncoder` makes of `Listing` (every key, unset ones null, keys sorted), without its
/// per-value boxing. The answer for a 10,000-item gallery is most of what the page waits for
/// before its grid paints (BENCHMARKS.md, "The web page on real nodes").
extension WebItems {
    /// `listing` as JSON.
    ///
    /// - Complexity: O(b) for b bytes written.
    static func encode(_ listing: Listing) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + listing.items.count * 240)
        out += Array(#"{"gallery":"#.utf8)
        writeString(listing.gallery, to: &out)
        out += Array(#","items":["#.utf8)
        for (index, item) in listing.items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            write(item, to: &out)
        }
        out += Array(#"],"lastEventId":"#.utf8)
        out += Array(String(listing.lastEventId).utf8)
        if let total = listing.total { out += Array(#","total":\#(total)"#.utf8) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// One ITEM, its keys in sorted order (as `JSONEncoder` with `.sortedKeys`).
    private static func write(_ item: ItemListing, to out: inout [UInt8]) {
        out += Array(#"{"aspectRatio":"#.utf8)
        if let ratio = item.aspectRatio, ratio.isFinite { out += Array("\(ratio)".utf8) } else { out += Array("null".utf8) }
        out += Array(#","bytes":"#.utf8)
        if let bytes = item.bytes { out += Array(String(bytes).utf8) } else { out += Array("null".utf8) }
        if let from = item.from {
            out += Array(#","from":"#.utf8)
            writeString(from, to: &out)
        }
        out += Array(#","hash":"#.utf8)
        writeOptional(item.hash, to: &out)
        out += Array(#","id":"#.utf8)
        writeString(item.id, to: &out)
        out += Array(#","mediaType":"#.utf8)
        writeOptional(item.mediaType, to: &out)
        out += Array(#","progress":"#.utf8)
        if let progress = item.progress {
            out += Array("{\"done\":\(progress.done),\"total\":\(progress.total)}".utf8)
        } else {
            out += Array("null".utf8)
        }
        out += Array(#","state":"#.utf8)
        writeString(item.state, to: &out)
        out += Array(#","title":"#.utf8)
        writeOptional(item.title, to: &out)
        if item.from != nil {
            out += Array(#","trashedAt":"#.utf8)
            out += Array((item.trashedAt.map { String($0) } ?? "null").utf8)
        }
        out += Array(#","url":"#.utf8)
        writeOptional(item.url, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    private static func writeOptional(_ text: String?, to out: inout [UInt8]) {
        if let text { writeString(text, to: &out) } else { out += Array("null".utf8) }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string: quotes and backslashes escaped, control characters as `\uXXXX` (or their short
    /// escapes), everything else as UTF-8 (JSON allows it; `/` is not escaped, as `.withoutEscapingSlashes`).
    static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20:
                out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                        hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

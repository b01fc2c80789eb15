/// The name-value pairs of a request target's query ("a=1&b=two%20words"), percent-decoded, with "+" as space.
package struct HTTPQuery: Hashable, Sendable {
    /// The pairs in order.
    private var pairs = HTTPPairs()

    /// The pairs in order; a name without "=" has an empty value.
    package var items: [(name: String, value: String)] { pairs.elements }

    /// Parses `query` (the text after "?"); nil gives an empty query. Bad escapes are kept as typed.
    package init(_ query: Substring?) {
        guard let query else { return }
        for piece in query.split(separator: "&") {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            pairs.append(name, value)
        }
    }

    /// The value of the first item named `name`, or nil.
    package subscript(name: String) -> String? {
        pairs.first { $0 == name }
    }

    /// Percent-decodes (and turns "+" into a space); invalid UTF-8 becomes U+FFFD.
    package static func decode<S: StringProtocol>(_ text: S) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count,
               let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? 0x20 : byte)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of one hex digit, or nil.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}

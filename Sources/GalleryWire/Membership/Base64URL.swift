/// Base64url (RFC 4648 section 5) without padding: the text form of invitation codes.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The text of `bytes`.
    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group: UInt32 = 0
            for offset in 0..<3 { group = group << 8 | UInt32(offset < count ? bytes[index + offset] : 0) }
            for position in 0...count { output.append(alphabet[Int(group >> UInt32(18 - 6 * position) & 63)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text`; nil for a character outside the alphabet, padding, a length that no
    /// encoding has, or bits left over that are not zero (so every byte string has one text).
    package static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt32] = []
        for character in text.utf8 {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            values.append(UInt32(value))
        }
        guard values.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for value in values {
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        guard buffer == 0 else { return nil }
        return output
    }
}

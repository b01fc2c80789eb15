/// Text from the space (titles, gallery and peer names, error lines that quote them) made safe
/// for a terminal: control characters (C0, DEL, C1) are shown as visible escapes, so that a title
/// cannot move the cursor, recolour the screen or hide other lines. JSON output is not escaped.
package enum TerminalText {
    /// `text` with `\t`, `\n`, `\r` and every other control character spelled out (`\u{1B}`).
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// C0 (U+0000 to U+001F), DEL (U+007F) and C1 (U+0080 to U+009F).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}

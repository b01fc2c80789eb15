/// The cookies of a request's `Cookie` fields (RFC 6265 §4.2), and `Set-Cookie` values to send.
package struct HTTPCookies: Hashable, Sendable {
    /// The cookies in the order sent.
    private var cookies = HTTPPairs()

    /// Name-value pairs in the order sent (a name may repeat; the first is the most specific).
    package var pairs: [(name: String, value: String)] { cookies.elements }

    /// Parses every `Cookie` field of `headers`: "a=b; c=d", values optionally in double quotes.
    /// Pairs without "=" or with an empty name are skipped, never fatal.
    package init(headers: HTTPHeaders) {
        for field in headers.values("cookie") {
            for piece in field.split(separator: ";") {
                guard let equals = piece.firstIndex(of: "=") else { continue }
                let name = piece[..<equals].trimmingSpaces
                var value = piece[piece.index(after: equals)...].trimmingSpaces
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    value = String(value.dropFirst().dropLast())
                }
                guard !name.isEmpty else { continue }
                cookies.append(name, value)
            }
        }
    }

    /// The value of the first cookie named `name` (case-sensitive), or nil.
    package subscript(name: String) -> String? {
        cookies.first { $0 == name }
    }

    /// A `Set-Cookie` value for a session credential: `HttpOnly`, `SameSite=Strict`, `Path=/`, no
    /// expiry (a session cookie). Characters a cookie value may not hold are dropped from `value`.
    package static func sessionCookie(name: String, value: String, maxAgeSeconds: Int? = nil) -> String {
        let cleanName = String(name.unicodeScalars.filter { $0.isASCII && HTTPRequestParser.isTokenByte(UInt8($0.value)) })
        let cleanValue = String(value.unicodeScalars.filter(isCookieOctet))
        var text = "\(cleanName)=\(cleanValue); Path=/; HttpOnly; SameSite=Strict"
        if let maxAgeSeconds { text += "; Max-Age=\(maxAgeSeconds)" }
        return text
    }

    /// cookie-octet: printable ASCII except space, double quote, comma, semicolon and backslash.
    private static func isCookieOctet(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x20 && scalar.value < 0x7F && scalar != "\"" && scalar != "," && scalar != ";" && scalar != "\\"
    }
}

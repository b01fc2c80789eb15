/// The grammar of single head lines (RFC 9112 §3 and §5, RFC 9110 §5.6.2).
extension HTTPRequestParser {
    /// Parses "METHOD SP target SP HTTP/x.y" with exactly one space between the parts.
    static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPRequestError)
        -> (method: String, target: String, version: HTTPVersion) {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("request line is not METHOD SP TARGET SP VERSION") }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else { throw .malformed("invalid method") }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .malformed("invalid request target")
        }
        let targetText = String(decoding: target, as: UTF8.self)
        let methodText = String(decoding: method, as: UTF8.self)
        guard targetText.hasPrefix("/") || (targetText == "*" && methodText == "OPTIONS") else {
            throw .malformed("request target must be origin-form (\"/path\")")
        }
        let versionText = String(decoding: version, as: UTF8.self)
        guard let parsed = HTTPVersion(rawValue: versionText) else {
            if isVersionShaped(version) { throw .unsupportedVersion(versionText) }
            throw .malformed("invalid protocol version")
        }
        return (methodText, targetText, parsed)
    }

    /// Parses "name:OWS value OWS"; refuses obs-fold, space before the colon and control characters.
    static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPRequestError) -> (String, String) {
        guard let first = line.first else { throw .malformed("empty header line") }
        if first == 0x20 || first == 0x09 { throw .malformed("obs-fold (line folding) is not accepted") }
        guard let colon = line.firstIndex(of: 0x3A) else { throw .malformed("header line without a colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty else { throw .malformed("empty header name") }
        guard name.allSatisfy(isTokenByte) else {
            if let last = name.last, last == 0x20 || last == 0x09 {
                throw .malformed("whitespace between header name and colon")
            }
            throw .malformed("invalid header name")
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == 0x20 || byte == 0x09 { value = value.dropFirst() }
        while let byte = value.last, byte == 0x20 || byte == 0x09 { value = value.dropLast() }
        guard value.allSatisfy(isFieldValueByte) else { throw .malformed("control character in a header value") }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    /// 1 to 19 decimal digits (so it fits in UInt64); nil for signs, spaces, lists or anything else.
    static func parseContentLength(_ text: String) -> UInt64? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(text)
    }

    /// A Host value: host name, IPv4 or bracketed IPv6, optional ":port"; no spaces, slashes, "@" or userinfo.
    static func isValidHost(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 255 else { return false }
        return host.utf8.allSatisfy { byte in
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true          // digits, letters
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
                 UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "%"):
                return true
            default: return false
            }
        }
    }

    /// tchar: "!#$%&'*+-.^_`|~", digits, letters.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default: return false
        }
    }

    /// field-vchar, SP or HTAB (obs-text 0x80-0xFF included).
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    /// "HTTP/" DIGIT "." DIGIT.
    private static func isVersionShaped(_ bytes: ArraySlice<UInt8>) -> Bool {
        let array = Array(bytes)
        return array.count == 8 && array.starts(with: Array("HTTP/".utf8))
            && (0x30...0x39).contains(array[5]) && array[6] == UInt8(ascii: ".") && (0x30...0x39).contains(array[7])
    }
}

/// How to answer a request's `Range` header for a resource of a known length (RFC 9110 §14).
package enum HTTPByteRange: Hashable, Sendable {
    /// Send the whole resource with 200: no `Range`, a unit other than bytes, several ranges (this
    /// server does not send multipart/byteranges) or a syntax error, all of which RFC 9110 lets a
    /// server ignore.
    case whole
    /// Send these bytes with 206 and `Content-Range: bytes first-last/length`.
    case partial(ClosedRange<UInt64>)
    /// Send 416 with `Content-Range: bytes */length`: the range starts past the end, or asks for
    /// the last 0 bytes, or the resource is empty.
    case unsatisfiable

    /// Resolves `header` (the `Range` value, or nil) against a resource of `length` bytes.
    ///
    /// Accepts one `bytes=first-last`, `bytes=first-` or `bytes=-suffix` (whitespace around the parts
    /// allowed); a `last` past the end is clamped; `first > last` is a syntax error (ignored).
    package init(header: String?, length: UInt64) {
        guard let header else { self = .whole; return }
        let trimmed = header.trimmingSpaces
        guard let equals = trimmed.firstIndex(of: "="),
              trimmed[..<equals].trimmingSpaces.lowercased() == "bytes"
        else { self = .whole; return }
        let set = trimmed[trimmed.index(after: equals)...]
        let specs = set.split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1, let spec = specs.first,
              let dash = spec.firstIndex(of: "-")
        else { self = .whole; return }
        let firstText = spec[..<dash].trimmingSpaces
        let lastText = spec[spec.index(after: dash)...].trimmingSpaces

        if firstText.isEmpty {
            guard let suffix = Self.number(lastText) else { self = .whole; return }
            guard suffix > 0, length > 0 else { self = .unsatisfiable; return }
            self = .partial((length - min(suffix, length))...(length - 1))
            return
        }
        guard let first = Self.number(firstText) else { self = .whole; return }
        var last = length &- 1
        if !lastText.isEmpty {
            guard let parsed = Self.number(lastText), parsed >= first else { self = .whole; return }
            last = min(parsed, length &- 1)
        }
        guard length > 0, first < length else { self = .unsatisfiable; return }
        self = .partial(first...last)
    }

    /// The `Content-Range` value for this answer (nil for `.whole`).
    package func contentRange(length: UInt64) -> String? {
        switch self {
        case .whole: return nil
        case .partial(let range): return "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"
        case .unsatisfiable: return "bytes */\(length)"
        }
    }

    /// The status to answer with.
    package var status: HTTPStatus {
        switch self {
        case .whole: return .ok
        case .partial: return .partialContent
        case .unsatisfiable: return .rangeNotSatisfiable
        }
    }

    /// 1 to 19 decimal digits.
    private static func number(_ text: String) -> UInt64? {
        HTTPRequestParser.parseContentLength(text)
    }
}

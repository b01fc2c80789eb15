/// A parsed request line and header section.
///
/// The parser has already checked the framing: `contentLength` is the only body length (no
/// `Transfer-Encoding`), `host` appeared at most once (exactly once for HTTP/1.1).
package struct HTTPRequestHead: Hashable, Sendable {
    /// The method token, case-sensitive as sent ("GET").
    package var method: String
    /// The request target as sent (origin-form "/path?query", or "*").
    package var target: String
    /// The protocol version.
    package var version: HTTPVersion
    /// The header fields, in order.
    package var headers: HTTPHeaders
    /// The body length (0 when the request has no `Content-Length`).
    package var contentLength: UInt64

    /// Makes a head from its parts (for tests and for building requests).
    package init(method: String, target: String, version: HTTPVersion = .http1_1,
                headers: HTTPHeaders = HTTPHeaders(), contentLength: UInt64 = 0) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.contentLength = contentLength
    }

    /// The `Host` field's value, or nil (HTTP/1.0 only).
    package var host: String? { headers["host"] }

    /// The target's path, before any "?", not percent-decoded.
    package var path: Substring {
        target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }

    /// The target's query, after the first "?", not decoded; nil when there is none.
    package var query: Substring? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return target[target.index(after: mark)...]
    }

    /// True when the connection stays open after the response: HTTP/1.1 unless `Connection: close`;
    /// HTTP/1.0 only with `Connection: keep-alive` (and then the response must say `keep-alive` too).
    package var keepAlive: Bool {
        let tokens = headers.tokens("connection")
        switch version {
        case .http1_1: return !tokens.contains("close")
        case .http1_0: return tokens.contains("keep-alive") && !tokens.contains("close")
        }
    }

    /// True when the client waits for `100 Continue` before sending its body.
    package var expectsContinue: Bool {
        version == .http1_1 && headers["expect"]?.lowercased() == "100-continue"
    }
}

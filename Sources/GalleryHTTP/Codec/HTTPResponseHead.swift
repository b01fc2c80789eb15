/// A response's status line and header fields, serialized for the wire.
package struct HTTPResponseHead: Hashable, Sendable {
    /// The status.
    package var status: HTTPStatus
    /// The header fields, in order.
    package var headers: HTTPHeaders
    /// The version on the status line (HTTP/1.1 even for HTTP/1.0 clients, as RFC 9110 §6.2 allows).
    package var version: HTTPVersion

    /// Makes a head from its parts.
    package init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), version: HTTPVersion = .http1_1) {
        self.status = status
        self.headers = headers
        self.version = version
    }

    /// Sets the `Connection` field for `request`'s keep-alive decision: `close` when the connection
    /// ends after this response, `keep-alive` for an HTTP/1.0 client that asked for it, nothing otherwise.
    package mutating func setConnection(for request: HTTPRequestHead?, keepAlive: Bool) {
        headers.remove("connection")
        if !keepAlive {
            headers.add("Connection", "close")
        } else if request?.version == .http1_0 {
            headers.add("Connection", "keep-alive")
        }
    }

    /// The bytes of the status line, the fields and the empty line.
    ///
    /// Never emits a header injection: a name that is not a token is left out, and CR, LF, NUL and
    /// other control characters in a value (say, from a file name) become spaces.
    package func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
        let reason = status.reason.utf8.map { HTTPRequestParser.isFieldValueByte($0) && $0 != 0x09 ? $0 : 0x20 }
        out.append(contentsOf: "\(version.rawValue) \(min(max(status.code, 100), 999)) ".utf8)
        out.append(contentsOf: reason)
        out.append(contentsOf: [0x0D, 0x0A])
        for (name, value) in headers.fields {
            guard !name.isEmpty, name.utf8.allSatisfy(HTTPRequestParser.isTokenByte) else { continue }
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: [0x3A, 0x20])
            out.append(contentsOf: value.utf8.map { HTTPRequestParser.isFieldValueByte($0) && $0 != 0x09 ? $0 : 0x20 })
            out.append(contentsOf: [0x0D, 0x0A])
        }
        out.append(contentsOf: [0x0D, 0x0A])
        return out
    }

    /// The whole `100 Continue` interim response.
    package static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}

extension HTTPResponseHead {
    /// A complete response with a body: the head (with `Content-Length`, `Content-Type`, `Connection`)
    /// followed by `body`, ready to write.
    package static func complete(status: HTTPStatus, contentType: String, body: [UInt8],
                                headers: HTTPHeaders = HTTPHeaders(), request: HTTPRequestHead?,
                                keepAlive: Bool) -> [UInt8] {
        var head = HTTPResponseHead(status: status, headers: headers)
        head.headers.set("Content-Type", contentType)
        head.headers.set("Content-Length", String(body.count))
        head.setConnection(for: request, keepAlive: keepAlive)
        return head.serialized() + body
    }

    /// The response to a refused request: the error's status, its text as the body, `Connection: close`.
    package static func refusal(_ error: HTTPRequestError) -> [UInt8] {
        complete(status: error.status, contentType: "text/plain; charset=utf-8",
                 body: Array(((error.errorDescription ?? "refused") + "\n").utf8),
                 request: nil, keepAlive: false)
    }
}

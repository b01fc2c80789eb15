/// An HTTP status code with its reason phrase, as written on a response's status line.
package struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The three-digit code.
    package let code: Int
    /// The reason phrase (informative only; clients ignore it).
    package let reason: String

    /// Makes a status from its parts.
    package init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// "404 Not Found".
    package var description: String { "\(code) \(reason)" }

    /// 100: the client may send the body it announced with `Expect: 100-continue`.
    package static let `continue` = HTTPStatus(code: 100, reason: "Continue")
    /// 200.
    package static let ok = HTTPStatus(code: 200, reason: "OK")
    /// 201.
    package static let created = HTTPStatus(code: 201, reason: "Created")
    /// 204.
    package static let noContent = HTTPStatus(code: 204, reason: "No Content")
    /// 206: a `Range` request answered with one range.
    package static let partialContent = HTTPStatus(code: 206, reason: "Partial Content")
    /// 304.
    package static let notModified = HTTPStatus(code: 304, reason: "Not Modified")
    /// 400: the request is malformed.
    package static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    /// 401: missing or wrong credentials.
    package static let unauthorized = HTTPStatus(code: 401, reason: "Unauthorized")
    /// 403: understood and refused.
    package static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    /// 404.
    package static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    /// 405.
    package static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    /// 408: the request did not arrive in time.
    package static let requestTimeout = HTTPStatus(code: 408, reason: "Request Timeout")
    /// 409.
    package static let conflict = HTTPStatus(code: 409, reason: "Conflict")
    /// 411: a body without a length.
    package static let lengthRequired = HTTPStatus(code: 411, reason: "Length Required")
    /// 413: the body is larger than the route accepts.
    package static let contentTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
    /// 414: the request line is too long.
    package static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
    /// 415.
    package static let unsupportedMediaType = HTTPStatus(code: 415, reason: "Unsupported Media Type")
    /// 416: no byte of the asked range exists.
    package static let rangeNotSatisfiable = HTTPStatus(code: 416, reason: "Range Not Satisfiable")
    /// 417: an `Expect` value other than `100-continue`.
    package static let expectationFailed = HTTPStatus(code: 417, reason: "Expectation Failed")
    /// 431: the header section is too large or has too many fields.
    package static let headerFieldsTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    /// 500.
    package static let internalServerError = HTTPStatus(code: 500, reason: "Internal Server Error")
    /// 501: a transfer coding (such as chunked) this server does not implement.
    package static let notImplemented = HTTPStatus(code: 501, reason: "Not Implemented")
    /// 503.
    package static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    /// 505: a protocol version other than HTTP/1.0 and HTTP/1.1.
    package static let versionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")
}

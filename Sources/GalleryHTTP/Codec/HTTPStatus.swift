/// An HTTP status code with its reason phrase, as written on a response's status line.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The three-digit code.
    public let code: Int
    /// The reason phrase (informative only; clients ignore it).
    public let reason: String

    /// Makes a status from its parts.
    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// "404 Not Found".
    public var description: String { "\(code) \(reason)" }

    /// 100: the client may send the body it announced with `Expect: 100-continue`.
    public static let `continue` = HTTPStatus(code: 100, reason: "Continue")
    /// 200.
    public static let ok = HTTPStatus(code: 200, reason: "OK")
    /// 201.
    public static let created = HTTPStatus(code: 201, reason: "Created")
    /// 204.
    public static let noContent = HTTPStatus(code: 204, reason: "No Content")
    /// 206: a `Range` request answered with one range.
    public static let partialContent = HTTPStatus(code: 206, reason: "Partial Content")
    /// 304.
    public static let notModified = HTTPStatus(code: 304, reason: "Not Modified")
    /// 400: the request is malformed.
    public static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    /// 401: missing or wrong credentials.
    public static let unauthorized = HTTPStatus(code: 401, reason: "Unauthorized")
    /// 403: understood and refused.
    public static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    /// 404.
    public static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    /// 405.
    public static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    /// 408: the request did not arrive in time.
    public static let requestTimeout = HTTPStatus(code: 408, reason: "Request Timeout")
    /// 409.
    public static let conflict = HTTPStatus(code: 409, reason: "Conflict")
    /// 411: a body without a length.
    public static let lengthRequired = HTTPStatus(code: 411, reason: "Length Required")
    /// 413: the body is larger than the route accepts.
    public static let contentTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
    /// 414: the request line is too long.
    public static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
    /// 415.
    public static let unsupportedMediaType = HTTPStatus(code: 415, reason: "Unsupported Media Type")
    /// 416: no byte of the asked range exists.
    public static let rangeNotSatisfiable = HTTPStatus(code: 416, reason: "Range Not Satisfiable")
    /// 417: an `Expect` value other than `100-continue`.
    public static let expectationFailed = HTTPStatus(code: 417, reason: "Expectation Failed")
    /// 431: the header section is too large or has too many fields.
    public static let headerFieldsTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    /// 500.
    public static let internalServerError = HTTPStatus(code: 500, reason: "Internal Server Error")
    /// 501: a transfer coding (such as chunked) this server does not implement.
    public static let notImplemented = HTTPStatus(code: 501, reason: "Not Implemented")
    /// 503.
    public static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    /// 505: a protocol version other than HTTP/1.0 and HTTP/1.1.
    public static let versionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")
}

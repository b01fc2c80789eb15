import Foundation

/// Why a request was refused before it reached a route. Each case maps to the status the server
/// answers with; after any of them the connection is closed, because the byte stream can no longer
/// be trusted to be in step with the client (request smuggling defence).
package enum HTTPRequestError: Error, Hashable, Sendable, LocalizedError {
    /// The request line or a header line is malformed; the text says what was wrong.
    case malformed(String)
    /// The request line is longer than `HTTPLimits.maxRequestLineBytes`.
    case requestLineTooLong(limit: Int)
    /// The header section is longer than `HTTPLimits.maxHeaderBytes`.
    case headersTooLarge(limit: Int)
    /// More header fields than `HTTPLimits.maxHeaderCount`.
    case tooManyHeaders(limit: Int)
    /// A version other than HTTP/1.0 and HTTP/1.1.
    case unsupportedVersion(String)
    /// `Transfer-Encoding` (chunked or any other coding): bodies must carry `Content-Length`.
    case transferEncodingNotImplemented(String)
    /// The body is longer than the route accepts: declared length, limit.
    case contentTooLarge(length: UInt64, limit: Int)
    /// An `Expect` value other than `100-continue`.
    case unsupportedExpectation(String)

    /// The status a server answers this error with.
    package var status: HTTPStatus {
        switch self {
        case .malformed: return .badRequest
        case .requestLineTooLong: return .uriTooLong
        case .headersTooLarge, .tooManyHeaders: return .headerFieldsTooLarge
        case .unsupportedVersion: return .versionNotSupported
        case .transferEncodingNotImplemented: return .notImplemented
        case .contentTooLarge: return .contentTooLarge
        case .unsupportedExpectation: return .expectationFailed
        }
    }

    /// A one-line human-readable description.
    package var errorDescription: String? {
        switch self {
        case .malformed(let reason):
            return "malformed request: \(reason)"
        case .requestLineTooLong(let limit):
            return "request line longer than \(limit) bytes"
        case .headersTooLarge(let limit):
            return "header section larger than \(limit) bytes"
        case .tooManyHeaders(let limit):
            return "more than \(limit) header fields"
        case .unsupportedVersion(let version):
            return "unsupported protocol version \"\(version)\" (HTTP/1.0 and HTTP/1.1 only)"
        case .transferEncodingNotImplemented(let coding):
            return "Transfer-Encoding \"\(coding)\" is not implemented; send Content-Length"
        case .contentTooLarge(let length, let limit):
            return "body of \(length) bytes is larger than the \(limit)-byte limit"
        case .unsupportedExpectation(let value):
            return "unsupported Expect \"\(value)\" (only 100-continue)"
        }
    }
}

import Foundation
import GalleryHTTP

/// A whole response of the web adapter: status, fields and body, with the fields every response
/// carries (http-api.md section 2) added when it is written.
struct WebResponse {
    var status: HTTPStatus
    var contentType: String
    var body: [UInt8]
    var headers = HTTPHeaders()

    /// `object` as JSON.
    static func json(_ object: WebJSON, status: Int = 200) -> WebResponse {
        WebResponse(status: HTTPStatus(code: status, reason: reason(status)), contentType: "application/json", body: object.bytes)
    }

    /// `value` as JSON (`JSONEncoder`, keys sorted, as `WebJSON` writes them for `json(_:)`).
    static func json(encoding value: some Encodable, status: Int = 200) -> WebResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
        return WebResponse(status: HTTPStatus(code: status, reason: reason(status)), contentType: "application/json", body: body)
    }

    /// A refusal's JSON (section 9): with `field` when a field of the request body is refused.
    static func refusal(_ refusal: WebRefusal) -> WebResponse {
        var json: WebJSON = ["error": .string(refusal.code), "message": .string(refusal.message)]
        if let field = refusal.field { json["field"] = .string(field) }
        return WebResponse(status: refusal.status, contentType: "application/json", body: json.bytes)
    }

    /// The bytes to write: head (security fields, `Cache-Control: no-store` unless set,
    /// `Content-Length`, `Connection`) and body.
    func serialized(for request: HTTPRequestHead?, keepAlive: Bool) -> [UInt8] {
        HTTPResponseHead.complete(status: status, contentType: contentType, body: body, headers: Self.withCommonFields(headers),
                                  request: request, keepAlive: keepAlive)
    }

    /// `headers` with the security fields (a response's own `Content-Security-Policy` replacing the
    /// page's) and, unless it has one, `Cache-Control: no-store`.
    static func withCommonFields(_ headers: HTTPHeaders) -> HTTPHeaders {
        var all = HTTPHeaders(PageAssets.securityHeaders.filter { headers[$0.0] == nil || $0.0 != "Content-Security-Policy" })
        if headers["cache-control"] == nil { all.add("Cache-Control", "no-store") }
        for (name, value) in headers where name.lowercased() != "x-content-type-options" { all.add(name, value) }
        return all
    }

    /// The reason phrase of a status code this adapter sends.
    static func reason(_ code: Int) -> String {
        [200: "OK", 201: "Created", 202: "Accepted", 206: "Partial Content", 303: "See Other", 304: "Not Modified",
         400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
         409: "Conflict", 413: "Content Too Large", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
         421: "Misdirected Request", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
         503: "Service Unavailable", 504: "Gateway Timeout"][code] ?? "Status"
    }
}

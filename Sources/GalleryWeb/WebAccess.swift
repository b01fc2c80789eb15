import Foundation
import GalleryHTTP

/// The security checks of http-api.md section 2, in their order: `Host` (DNS rebinding), the
/// session cookie (`WebSession`, 30 days; or the one-time `/?token=` login), `Origin` on
/// state-changing methods (CSRF), and the body's content type. Pure but for the clock: no I/O.
/// Signed out, `GET /` answers a small HTML page saying how to get a new link (`SignInPage`); the
/// API's paths answer JSON.
struct WebAccess: Sendable {
    /// What to do with a request.
    enum Decision {
        /// Go on to the route.
        case allowed
        /// Answer this (a refusal, or the login's redirect) instead.
        case answer(WebResponse)
    }

    /// The node's token.
    let token: String
    /// The `Host` values taken, lower-case (`HOST:PORT` as bound; for 127.0.0.1 also `localhost:PORT`).
    let hosts: Set<String>
    /// `http://HOST:PORT` as bound.
    let origin: String

    /// The name of the session cookie the login sets: `gallery_session_PORT`. Cookies are kept per
    /// host, not per port, so two nodes on 127.0.0.1 open in one browser (two windows side by side)
    /// would overwrite each other's `gallery_session` and sign each other out.
    let cookieName: String
    /// The port-less name, still taken from scripts (`curl -b gallery_session=TOKEN`) when the
    /// port's cookie is absent.
    static let plainCookieName = "gallery_session"

    init(token: String, host: String, port: UInt16) {
        self.token = token
        let bound = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hosts: Set<String> = [bound.lowercased()]
        if host == "127.0.0.1" || host == "::1" { hosts.insert("localhost:\(port)") }
        self.hosts = hosts
        self.origin = "http://\(bound)"
        cookieName = "\(Self.plainCookieName)_\(port)"
    }

    /// The checks, in order, for `request` at `now`.
    func decide(_ request: HTTPRequestHead, now: Date = Date()) -> Decision {
        guard let host = request.host?.lowercased(), hosts.contains(host) else {
            return refuse(421, "misdirected", "this node answers to \(origin.dropFirst("http://".count)) only")
        }
        let query = HTTPQuery(request.query)
        if request.method == "GET", request.path == "/", let offered = query["token"] {
            guard WebToken.constantTimeEquals(offered, token) else { return .answer(SignInPage.response(.wrongLink, origin: origin)) }
            var response = WebResponse(status: HTTPStatus(code: 303, reason: "See Other"), contentType: "text/plain; charset=utf-8", body: [])
            response.headers.add("Location", "/")
            response.headers.add("Set-Cookie", HTTPCookies.sessionCookie(name: cookieName, value: WebSession.make(token: token, now: now),
                                                                         maxAgeSeconds: WebSession.lifetimeSeconds))
            return .answer(response)
        }
        let cookies = HTTPCookies(headers: request.headers)
        let verdict = (cookies[cookieName] ?? cookies[Self.plainCookieName]).map { WebSession.check($0, token: token, now: now) }
        guard verdict == .valid else {
            let reason: SignInPage.Reason = switch verdict {
            case nil: .missing
            case .expired(let date): .expired(date)
            default: .invalid
            }
            if request.method == "GET", request.path == "/" { return .answer(SignInPage.response(reason, origin: origin)) }
            return refuse(401, "unauthorized", "signed out: \(SignInPage.explanation(reason)) Open the link `gallery open` prints")
        }
        guard ["POST", "PUT", "DELETE"].contains(request.method) else { return .allowed }
        guard request.headers["origin"] == origin else {
            return refuse(403, "origin", "a change must come from \(origin)")
        }
        let wanted = switch request.method {
        case "POST": "application/json"
        case "PUT": "application/octet-stream"
        default: ""
        }
        if !wanted.isEmpty {
            let type = request.headers["content-type"]?.split(separator: ";").first?
                .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard type == wanted else { return refuse(415, "contentType", "send Content-Type: \(wanted)") }
        }
        return .allowed
    }

    private func refuse(_ status: Int, _ code: String, _ message: String) -> Decision {
        .answer(.refusal(WebRefusal(status, code, message)))
    }
}

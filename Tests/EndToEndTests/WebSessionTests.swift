import Foundation
import GalleryCrypto
import GalleryTestSupport
import Testing

/// Sign-in that lasts (http-api.md section 2), against a real `gallery serve --http` over real TCP:
/// the token link's 30-day session cookie, sessions that survive a restart and end when they
/// expire or the token is replaced, and the small HTML page `/` shows when signed out (the API
/// keeps answering JSON).
@Suite("web adapter: sessions and the sign-in page", .serialized)
struct WebSessionTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-session-\(UUID().uuidString)")

    /// A session value made as the node makes them, ending at `expiry` (Unix seconds), under `token`.
    private func session(expiry: Int, token: String) -> String {
        "s1.\(expiry).\(SHA256.hex(HMACSHA256.authenticationCode(for: Array("gallery-session-v1:\(expiry)".utf8), key: Array(token.utf8))))"
    }

    /// Signs in through the token link; returns the Set-Cookie field.
    private func signIn(_ node: WebNode) throws -> String {
        let client = try node.client()
        client.send("GET", "/?token=\(node.token)", host: node.host)
        let login = try #require(client.response())
        #expect(login.status == 303)
        return try #require(login.headers["set-cookie"])
    }

    /// `GET target` with only `cookie` (NAME=VALUE), on a new connection.
    private func get(_ node: WebNode, _ target: String, cookie: String?) throws -> WebClient.Response {
        let client = try node.client()
        client.send("GET", target, host: node.host, headers: cookie.map { [("Cookie", $0)] } ?? [])
        return try #require(client.response())
    }

    @Test("The token link sets a 30-day HttpOnly, SameSite=Strict session for / that opens the page and the API, and survives a restart")
    func lastingSession() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("keep", base: base)
        defer { node.stop() }
        let before = Int(Date().timeIntervalSince1970)
        let setCookie = try signIn(node)
        let attributes = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=2592000"] {
            #expect(attributes.contains(attribute), "\(attribute) in \(setCookie)")
        }
        let pair = try #require(attributes.first)
        #expect(pair.hasPrefix("gallery_session_\(node.port)=s1."))
        let value = String(pair.dropFirst("gallery_session_\(node.port)=".count))
        let expiry = try #require(Int(value.split(separator: ".")[1]))
        #expect(abs(expiry - (before + 30 * 86_400)) <= 5, "ends 30 days from now")
        #expect(value == session(expiry: expiry, token: node.token), "the documented format: s1.EXPIRY.HMAC(token)")

        for (path, type) in [("/", "text/html"), ("/assets/app.js", "text/javascript"), ("/api/status", "application/json")] {
            let answer = try get(node, path, cookie: pair)
            #expect(answer.status == 200, "\(path)")
            #expect(answer.headers["content-type"]?.hasPrefix(type) == true, "\(path)")
        }
        node.stop()
        try node.start()
        #expect(try get(node, "/api/status", cookie: pair).status == 200, "the session outlives the node's restart")
        #expect(try get(node, "/", cookie: pair).status == 200)
    }

    @Test("Signed out, / shows a small HTML page naming `gallery open` (missing, expired, forged, wrong link); the API keeps JSON")
    func signInPage() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("page", base: base)
        defer { node.stop() }
        let name = "gallery_session_\(node.port)"
        let now = Int(Date().timeIntervalSince1970)
        let expired = session(expiry: now - 3_600, token: node.token)
        var forged = session(expiry: now + 86_400, token: node.token)
        // The MAC's last hex digit changed (never to itself: that would be the real session).
        let last = forged.removeLast()
        forged += last == "0" ? "1" : "0"
        let cases: [(String, String?, String)] = [
            ("/", nil, "not signed in"),
            ("/", "\(name)=\(expired)", "Your session ended on"),
            ("/", "\(name)=\(forged)", "not valid for this node"),
            ("/", "\(name)=\(session(expiry: now + 86_400, token: String(repeating: "b", count: 64)))", "not valid for this node"),
            ("/?token=\(String(repeating: "c", count: 64))", nil, "link is not this node"),
        ]
        for (target, cookie, says) in cases {
            let answer = try get(node, target, cookie: cookie)
            #expect(answer.status == 401, "\(target) \(says)")
            #expect(answer.headers["content-type"] == "text/html; charset=utf-8", "\(says)")
            #expect(answer.text.hasPrefix("<!doctype html>"), "\(says)")
            #expect(answer.text.contains(says), "\(says): \(answer.text)")
            #expect(answer.text.contains("<code>gallery open</code>"), "\(says)")
            #expect(!answer.text.contains("<script"), "\(says)")
            let policy = answer.headers["content-security-policy"] ?? ""
            #expect(policy.hasPrefix("default-src 'none'; style-src 'sha256-"), "only its own style sheet: \(policy)")
            #expect(answer.headers["x-content-type-options"] == "nosniff")
        }
        // The API's paths answer JSON whatever the reason.
        for cookie in [nil, "\(name)=\(expired)"] as [String?] {
            let answer = try get(node, "/api/status", cookie: cookie)
            #expect(answer.status == 401)
            #expect(answer.headers["content-type"] == "application/json")
            #expect(answer.json["error"] as? String == "unauthorized")
        }
        #expect((try get(node, "/api/status", cookie: "\(name)=\(expired)").json["message"] as? String)?.contains("ended on") == true)
        // A session one hour from its end still opens everything.
        #expect(try get(node, "/", cookie: "\(name)=\(session(expiry: now + 3_600, token: node.token))").status == 200)
    }

    @Test("Replacing the token file ends every session; the new link signs in again")
    func tokenReplaced() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("rotate", base: base)
        defer { node.stop() }
        let pair = try #require(try signIn(node).split(separator: ";").first.map(String.init))
        node.stop()
        try FileManager.default.removeItem(at: node.directory.appendingPathComponent("http-token"))
        try node.start()
        let answer = try get(node, "/", cookie: pair)
        #expect(answer.status == 401)
        #expect(answer.text.contains("not valid for this node"))
        let again = try #require(try signIn(node).split(separator: ";").first.map(String.init))
        #expect(try get(node, "/", cookie: again).status == 200)
    }
}

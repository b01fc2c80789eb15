import Foundation
import GalleryTestSupport
import Testing

/// Every refusal of http-api.md section 2 and of the codec, against a real `gallery serve --http`
/// over real TCP; after each, the node keeps serving (the same connection when the refusal keeps
/// it, a new one when it closes it).
@Suite("web adapter: security checks across processes", .serialized)
struct WebSecurityTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-web-\(UUID().uuidString)")

    /// The fields every response carries.
    private func expectCommonFields(_ response: WebClient.Response, _ comment: Comment) {
        #expect(response.headers["content-security-policy"]?.contains("default-src 'none'") == true, comment)
        #expect(response.headers["content-security-policy"]?.contains("script-src 'self'") == true, comment)
        #expect(response.headers["x-content-type-options"] == "nosniff", comment)
        #expect(response.headers["referrer-policy"] == "no-referrer", comment)
        #expect(response.headers["access-control-allow-origin"] == nil, comment)
    }

    /// A signed-in GET on `client` answers 200: the connection (and the node) still serve.
    private func expectServing(_ node: WebNode, on client: WebClient? = nil) throws {
        let client = try client ?? node.client()
        client.send("GET", "/api/status", host: node.host, headers: node.fields())
        let answer = try #require(client.response())
        #expect(answer.status == 200)
        #expect(answer.json["node"] as? String == "sec")
    }

    @Test("token: missing or wrong is 401; the token link answers 303 with a strict session cookie; the file is 0600")
    func token() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("sec", base: base)
        defer { node.stop() }
        let attributes = try FileManager.default.attributesOfItem(atPath: node.directory.appendingPathComponent("http-token").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(node.token.count == 64)

        let client = try node.client()
        for (target, headers) in [("/api/status", []), ("/api/status", [("Cookie", "gallery_session=\(String(repeating: "0", count: 64))")]),
                                  ("/blobs/\(String(repeating: "a", count: 64))", [])]
            as [(String, [(String, String)])] {
            client.send("GET", target, host: node.host, headers: headers)
            let answer = try #require(client.response(), "\(target)")
            #expect(answer.status == 401, "\(target)")
            #expect(answer.json["error"] as? String == "unauthorized", "\(target)")
            #expect(answer.headers["content-type"] == "application/json")
            expectCommonFields(answer, "\(target)")
        }
        // The page's own address answers a small HTML page instead (WebSessionTests).
        for target in ["/?token=\(String(repeating: "a", count: 64))", "/"] {
            client.send("GET", target, host: node.host)
            let answer = try #require(client.response(), "\(target)")
            #expect(answer.status == 401, "\(target)")
            #expect(answer.headers["content-type"] == "text/html; charset=utf-8", "\(target)")
            #expect(answer.text.contains("gallery open"), "\(target)")
        }
        client.send("GET", "/?token=\(node.token)", host: node.host)
        let login = try #require(client.response())
        #expect(login.status == 303)
        #expect(login.headers["location"] == "/")
        let cookie = try #require(login.headers["set-cookie"])
        #expect(cookie.hasPrefix("gallery_session_\(node.port)=s1."), "one cookie per port: two nodes on one host do not sign each other out")
        #expect(!cookie.contains(node.token), "the cookie holds a session, not the token")
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] { #expect(cookie.contains(attribute), "\(attribute)") }
        expectCommonFields(login, "login")
        // The same keep-alive connection, signed in now: the page, its assets and the API.
        for (path, type) in [("/", "text/html"), ("/assets/app.js", "text/javascript"), ("/assets/app.css", "text/css")] {
            client.send("GET", path, host: node.host, headers: node.fields())
            let answer = try #require(client.response())
            #expect(answer.status == 200, "\(path)")
            #expect(answer.headers["content-type"]?.hasPrefix(type) == true, "\(path)")
            #expect(answer.headers["cache-control"] == "no-store", "\(path)")
        }
        try expectServing(node, on: client)

        // `gallery -C DIR open` prints the same link (and opens nothing here).
        let open = try node.gallery("open", "--print-only")
        #expect(open.status == 0)
        #expect(open.stdout == "\(node.origin)/?token=\(node.token)\n")
    }

    @Test("gallery open without a web page exits 69; a bad --http value is a usage error")
    func openWithoutWeb() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let directory = base.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let plain = try ServeProcess([directory.path])
        defer { plain.stop() }
        let open = try GalleryProcess.run(["-C", directory.path, "open", "--print-only"])
        #expect(open.status == 69)
        #expect(open.stderr.contains("--http"))
        let bad = try GalleryProcess.run(["serve", base.appendingPathComponent("other").path, "--http", "127.0.0.1:99999"])
        #expect(bad.status == 64)
    }

    @Test("Host other than the bound address is 421; Origin of another site on a change is 403; wrong content type 415; nothing changes")
    func hostOriginContentType() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("sec", base: base)
        defer { node.stop() }
        let client = try node.client()
        for host in ["evil.example:\(node.port)", "127.0.0.1:1", "localhost:1", "127.0.0.2:\(node.port)"] {
            client.send("GET", "/api/status", host: host, headers: node.fields())
            let answer = try #require(client.response())
            #expect(answer.status == 421, "\(host)")
            #expect(answer.json["error"] as? String == "misdirected")
        }
        client.send("GET", "/api/status", host: "localhost:\(node.port)", headers: node.fields())
        #expect(client.response()?.status == 200)

        let body = Array(#"{"name": "evil"}"#.utf8)
        let cookie = ("Cookie", "gallery_session=\(node.token)")
        let refusals: [([(String, String)], Int, String)] = [
            ([cookie, ("Origin", "http://evil.example"), ("Content-Type", "application/json")], 403, "origin"),
            ([cookie, ("Content-Type", "application/json")], 403, "origin"),
            ([cookie, ("Origin", "http://localhost:\(node.port)0"), ("Content-Type", "application/json")], 403, "origin"),
            ([cookie, ("Origin", node.origin), ("Content-Type", "text/plain")], 415, "contentType"),
            ([cookie, ("Origin", node.origin), ("Content-Type", "application/x-www-form-urlencoded")], 415, "contentType"),
            ([cookie, ("Origin", node.origin)], 415, "contentType"),
            ([("Origin", node.origin), ("Content-Type", "application/json")], 401, "unauthorized"),
        ]
        for (headers, status, code) in refusals {
            client.send("POST", "/api/galleries", host: node.host, headers: headers, body: body)
            let answer = try #require(client.response())
            #expect(answer.status == status, "\(headers)")
            #expect(answer.json["error"] as? String == code, "\(headers)")
        }
        // A PUT upload body must be octet-stream.
        client.send("PUT", "/api/uploads/u1", host: node.host,
                    headers: [cookie, ("Origin", node.origin), ("Content-Type", "application/json")], body: Array("{}".utf8))
        #expect(client.response()?.status == 415)
        // Unknown path 404, known path with the wrong method 405 with Allow.
        client.send("GET", "/api/nothing", host: node.host, headers: node.fields())
        #expect(client.response()?.status == 404)
        client.send("GET", "/api/items/move", host: node.host, headers: node.fields())
        let wrongMethod = try #require(client.response())
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"] == "POST")
        try expectServing(node, on: client)
        #expect(try node.gallery("galleries").stdout.contains("evil") == false)
    }

    @Test("codec refusals: headers over 16 KiB 431, a JSON body over 1 MiB 413, a bad request line 400; each closes, the node serves on")
    func limits() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("sec", base: base)
        defer { node.stop() }
        let cases: [(String, [UInt8], Int)] = [
            ("431", Array("GET /api/status HTTP/1.1\r\nHost: \(node.host)\r\nX-Big: \(String(repeating: "a", count: 17 * 1024))\r\n\r\n".utf8), 431),
            ("413", Array("POST /api/galleries HTTP/1.1\r\nHost: \(node.host)\r\nCookie: gallery_session=\(node.token)\r\nOrigin: \(node.origin)\r\nContent-Type: application/json\r\nContent-Length: \(2 << 20)\r\n\r\n{".utf8), 413),
            ("400", Array("GARBAGE\r\n\r\n".utf8), 400),
            ("400 smuggling", Array("POST /api/galleries HTTP/1.1\r\nHost: \(node.host)\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n".utf8), 400),
        ]
        for (name, bytes, status) in cases {
            let client = try node.client()
            client.send(bytes)
            let answer = try #require(client.response(), "\(name)")
            #expect(answer.status == status, "\(name)")
            #expect(answer.headers["connection"] == "close", "\(name)")
            #expect(client.waitForClose(), "\(name): the connection stays open")
            try expectServing(node)
        }
        // A JSON body just within 1 MiB is read (and refused for what it says, not for its size).
        let client = try node.client()
        let big = Array("{\"name\": \"\(String(repeating: "x", count: (1 << 20) - 20))\"}".utf8)
        client.send("POST", "/api/galleries", host: node.host, headers: node.fields(change: "application/json"), body: big)
        let answer = try #require(client.response())
        #expect(answer.status == 400)
        #expect(answer.json["error"] as? String == "badName")
        try expectServing(node, on: client)
    }
}

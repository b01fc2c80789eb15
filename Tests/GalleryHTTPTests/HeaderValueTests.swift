import GalleryHTTP
import Testing

/// Cookies, query strings and response heads: parsing what clients send, never injecting what we send.
@Suite("HTTP header values")
struct HeaderValueTests {
    @Test("Cookie fields split on semicolons, unquote values, skip junk and keep the first of a name")
    func cookies() {
        let headers = HTTPHeaders([("Cookie", "a=1; token=\"s3cr3t\";junk; =x; b = two "), ("Cookie", "a=later")])
        let cookies = HTTPCookies(headers: headers)
        #expect(cookies["token"] == "s3cr3t")
        #expect(cookies["a"] == "1")
        #expect(cookies["b"] == "two")
        #expect(cookies["junk"] == nil)
        #expect(cookies.pairs.count == 4)
        #expect(HTTPCookies(headers: HTTPHeaders())["a"] == nil)
    }

    @Test("A session cookie is HttpOnly and SameSite=Strict, and cannot carry extra attributes")
    func sessionCookie() {
        #expect(HTTPCookies.sessionCookie(name: "gallery-token", value: "abc123")
                == "gallery-token=abc123; Path=/; HttpOnly; SameSite=Strict")
        let injected = HTTPCookies.sessionCookie(name: "t", value: "x; Domain=evil\r\nSet-Cookie: y=z", maxAgeSeconds: 60)
        #expect(injected == "t=xDomain=evilSet-Cookie:y=z; Path=/; HttpOnly; SameSite=Strict; Max-Age=60")
    }

    @Test("Query items are percent-decoded with + as space; bad escapes stay as typed")
    func query() {
        let query = HTTPQuery("token=ab%2Fc&title=two+words%21&flag&bad=%zz%4&utf=%C3%A9")
        #expect(query["token"] == "ab/c")
        #expect(query["title"] == "two words!")
        #expect(query["flag"] == "")
        #expect(query["bad"] == "%zz%4")
        #expect(query["utf"] == "é")
        #expect(query["missing"] == nil)
        #expect(HTTPQuery(nil).items.isEmpty)
    }

    @Test("A response head serializes in order, and CR/LF in a value cannot inject a field")
    func responseHead() {
        var head = HTTPResponseHead(status: .partialContent)
        head.headers.add("Content-Range", "bytes 0-1/10")
        head.headers.add("X-File", "evil.png\r\nSet-Cookie: a=b")
        head.headers.add("Bad Name", "dropped")
        let text = String(decoding: head.serialized(), as: UTF8.self)
        #expect(text == "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-1/10\r\nX-File: evil.png  Set-Cookie: a=b\r\n\r\n")

        let whole = HTTPResponseHead.complete(status: .ok, contentType: "application/json", body: Array("{}".utf8),
                                              request: nil, keepAlive: true)
        #expect(String(decoding: whole, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        #expect(String(decoding: HTTPResponseHead.continueBytes, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
    }

    @Test("The serialized head parses back with the same fields (round trip through the request grammar)")
    func headRoundTrip() {
        var head = HTTPResponseHead(status: .ok)
        head.headers.add("ETag", "\"abc\"")
        head.headers.add("Cache-Control", "public, max-age=31536000, immutable")
        let bytes = head.serialized()
        // Reuse the request parser on the field lines by swapping the status line for a request line.
        let fields = bytes.drop { $0 != 0x0A }.dropFirst()
        let request = Array("GET / HTTP/1.1\r\nHost: h\r\n".utf8) + fields
        let parsed = parseAll(request)
        #expect(parsed.error == nil)
        #expect(parsed.requests.first?.head.headers["etag"] == "\"abc\"")
        #expect(parsed.requests.first?.head.headers.tokens("cache-control") == ["public", "max-age=31536000", "immutable"])
    }
}

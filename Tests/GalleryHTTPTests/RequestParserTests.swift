import GalleryHTTP
import Testing

/// The request parser: framing, pipelining, keep-alive, and every refusal with its status.
@Suite("HTTP request parser")
struct RequestParserTests {
    @Test("A GET with headers parses to its head and an empty body, whatever the piece sizes")
    func simpleGet() {
        let bytes = crlf("GET /blobs/abc?x=1 HTTP/1.1\nHost: 127.0.0.1:8080\nAccept:  text/html \nX-Empty:\n\n")
        for pieces in [[], [1], [2, 3], [7]] {
            let (requests, error) = parseAll(bytes, pieces: pieces)
            #expect(error == nil)
            #expect(requests.count == 1)
            let head = requests[0].head
            #expect(head.method == "GET")
            #expect(head.target == "/blobs/abc?x=1")
            #expect(head.path == "/blobs/abc")
            #expect(head.query == "x=1")
            #expect(head.version == .http1_1)
            #expect(head.headers["ACCEPT"] == "text/html")
            #expect(head.headers["x-empty"] == "")
            #expect(head.host == "127.0.0.1:8080")
            #expect(requests[0].body.isEmpty && requests[0].ended)
        }
    }

    @Test("Content-Length bodies arrive whole and pipelined requests stay apart")
    func bodiesAndPipelining() {
        let body = (0..<5000).map { UInt8($0 % 251) }
        var bytes = crlf("POST /upload HTTP/1.1\nHost: h\nContent-Length: 5000\n\n") + body
        bytes += crlf("GET /a HTTP/1.1\nHost: h\n\nGET /b HTTP/1.1\nHost: h\nContent-Length: 3\n\n") + Array("xyz".utf8)
        for pieces in [[], [1], [13, 1, 700]] {
            let (requests, error) = parseAll(bytes, pieces: pieces)
            #expect(error == nil)
            #expect(requests.map(\.head.target) == ["/upload", "/a", "/b"])
            #expect(requests[0].body == body)
            #expect(requests[1].body.isEmpty)
            #expect(requests[2].body == Array("xyz".utf8))
            #expect(requests.allSatisfy { $0.ended })
        }
    }

    @Test("Empty lines before a request line are skipped; isIdle holds only between requests")
    func leadingEmptyLinesAndIdle() throws {
        var parser = HTTPRequestParser()
        #expect(parser.isIdle)
        parser.receive(crlf("\nGET / HTTP/1.1\nHost: h\n\n"))
        guard case .head(let head) = try parser.next() else { Issue.record("no head"); return }
        #expect(head.target == "/")
        #expect(!parser.isIdle)
        #expect(try parser.next() == .end)
        #expect(try parser.next() == nil)
        #expect(parser.isIdle)
        parser.receive(Array("G".utf8))
        #expect(try parser.next() == nil)
        #expect(!parser.isIdle)
    }

    @Test("Keep-alive: HTTP/1.1 by default, Connection: close ends it, HTTP/1.0 only with keep-alive")
    func keepAlive() {
        func head(_ text: String) -> HTTPRequestHead? { parseAll(crlf(text)).requests.first?.head }
        #expect(head("GET / HTTP/1.1\nHost: h\n\n")?.keepAlive == true)
        #expect(head("GET / HTTP/1.1\nHost: h\nConnection: Close\n\n")?.keepAlive == false)
        #expect(head("GET / HTTP/1.1\nHost: h\nConnection: upgrade, close\n\n")?.keepAlive == false)
        #expect(head("GET / HTTP/1.0\n\n")?.keepAlive == false)
        #expect(head("GET / HTTP/1.0\nConnection: Keep-Alive\n\n")?.keepAlive == true)
        #expect(head("POST / HTTP/1.1\nHost: h\nExpect: 100-continue\nContent-Length: 1\n\nx")?.expectsContinue == true)

        var response = HTTPResponseHead(status: .ok)
        response.setConnection(for: head("GET / HTTP/1.0\nConnection: keep-alive\n\n"), keepAlive: true)
        #expect(response.headers["connection"] == "keep-alive")
        response.setConnection(for: head("GET / HTTP/1.1\nHost: h\n\n"), keepAlive: true)
        #expect(response.headers["connection"] == nil)
        response.setConnection(for: nil, keepAlive: false)
        #expect(response.headers["connection"] == "close")
    }

    /// Requests that must be refused, with the status each must get.
    static let refusals: [(String, [UInt8], Int)] = [
        ("bare LF", Array("GET / HTTP/1.1\nHost: h\n\n".utf8), 400),
        ("bare LF after headers", Array("GET / HTTP/1.1\r\nHost: h\n\r\n".utf8), 400),
        ("bare CR", Array("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n".utf8), 400),
        ("obs-fold", crlf("GET / HTTP/1.1\nHost: h\nX-A: one\n two\n\n"), 400),
        ("space before colon", crlf("GET / HTTP/1.1\nHost: h\nContent-Length : 5\n\nhello"), 400),
        ("no colon", crlf("GET / HTTP/1.1\nHost: h\nNoColon\n\n"), 400),
        ("NUL in value", Array("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n".utf8), 400),
        ("duplicate Content-Length", crlf("POST / HTTP/1.1\nHost: h\nContent-Length: 3\nContent-Length: 3\n\nabc"), 400),
        ("list Content-Length", crlf("POST / HTTP/1.1\nHost: h\nContent-Length: 3, 3\n\nabc"), 400),
        ("signed Content-Length", crlf("POST / HTTP/1.1\nHost: h\nContent-Length: +3\n\nabc"), 400),
        ("huge Content-Length", crlf("POST / HTTP/1.1\nHost: h\nContent-Length: 99999999999999999999\n\n"), 400),
        ("TE and CL", crlf("POST / HTTP/1.1\nHost: h\nTransfer-Encoding: chunked\nContent-Length: 3\n\nabc"), 400),
        ("chunked", crlf("POST / HTTP/1.1\nHost: h\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n"), 501),
        ("duplicate Host", crlf("GET / HTTP/1.1\nHost: a\nHost: b\n\n"), 400),
        ("missing Host", crlf("GET / HTTP/1.1\nAccept: */*\n\n"), 400),
        ("Host with userinfo", crlf("GET / HTTP/1.1\nHost: evil@h\n\n"), 400),
        ("absolute-form", crlf("GET http://h/ HTTP/1.1\nHost: h\n\n"), 400),
        ("two spaces", crlf("GET  / HTTP/1.1\nHost: h\n\n"), 400),
        ("lower-case version", crlf("GET / http/1.1\nHost: h\n\n"), 400),
        ("HTTP/2.0", crlf("GET / HTTP/2.0\nHost: h\n\n"), 505),
        ("bad method", crlf("G(T / HTTP/1.1\nHost: h\n\n"), 400),
        ("Expect other", crlf("GET / HTTP/1.1\nHost: h\nExpect: magic\n\n"), 417),
        ("request line too long", Array(("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\n").utf8), 414),
        ("unterminated request line", Array(("GET /" + String(repeating: "a", count: 9000)).utf8), 414),
        ("head too large", crlf("GET / HTTP/1.1\nHost: h\n" + String(repeating: "X-Pad: " + String(repeating: "p", count: 1000) + "\n", count: 17) + "\n"), 431),
        ("unterminated header", crlf("GET / HTTP/1.1\nHost: h\nX: " + String(repeating: "p", count: 17000)), 431),
        ("too many headers", crlf("GET / HTTP/1.1\nHost: h\n" + String(repeating: "A: b\n", count: 101) + "\n"), 431),
    ]

    @Test("Malformed, smuggling-shaped and oversized requests are refused with the right status", arguments: 0..<refusals.count)
    func refusal(index: Int) {
        let (name, bytes, status) = Self.refusals[index]
        for pieces in [[], [1], [5, 9]] {
            let (requests, error) = parseAll(bytes, pieces: pieces)
            #expect(requests.isEmpty, "\(name): parsed a request")
            #expect(error?.status.code == status, "\(name) in pieces \(pieces): \(String(describing: error))")
        }
    }

    @Test("After a refusal the parser stays failed, and the refusal response closes the connection")
    func failedStaysFailed() throws {
        var parser = HTTPRequestParser()
        parser.receive(crlf("GET / HTTP/1.1\nHost: a\nHost: b\n\n"))
        #expect(throws: HTTPRequestError.malformed("duplicate Host")) { try parser.next() }
        parser.receive(crlf("GET / HTTP/1.1\nHost: a\n\n"))
        #expect(throws: HTTPRequestError.malformed("duplicate Host")) { try parser.next() }
        let response = String(decoding: HTTPResponseHead.refusal(.malformed("duplicate Host")), as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(response.contains("\r\nConnection: close\r\n"))
        #expect(response.hasSuffix("\r\n\r\nmalformed request: duplicate Host\n"))
    }

    @Test("A 16 KiB head passes and one byte more is refused; the collector refuses bodies over 1 MiB with 413")
    func limitsAtTheEdge() throws {
        let prefix = "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: "
        let padding = HTTPLimits.standard.maxHeaderBytes - prefix.utf8.count - 4
        let exact = Array((prefix + String(repeating: "p", count: padding) + "\r\n\r\n").utf8)
        #expect(exact.count == 16 * 1024)
        #expect(parseAll(exact).error == nil)
        let over = Array((prefix + String(repeating: "p", count: padding + 1) + "\r\n\r\n").utf8)
        #expect(parseAll(over).error?.status == .headerFieldsTooLarge)

        let big = HTTPRequestHead(method: "POST", target: "/api", contentLength: 1 << 20 + 1)
        #expect(throws: HTTPRequestError.contentTooLarge(length: 1 << 20 + 1, limit: 1 << 20)) {
            _ = try HTTPBodyCollector(head: big)
        }
        var collector = try HTTPBodyCollector(head: HTTPRequestHead(method: "POST", target: "/", contentLength: 1 << 20))
        collector.append([UInt8](repeating: 1, count: 1 << 20))
        #expect(collector.isComplete)

        var tight = HTTPLimits.standard
        tight.maxContentLength = 10
        #expect(parseAll(crlf("POST / HTTP/1.1\nHost: h\nContent-Length: 11\n\n"), limits: tight).error?.status.code == 413)
    }

    @Test("A head trickling in one byte at a time is scanned in linear time")
    func slowHeadIsLinear() throws {
        let line = "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: " + String(repeating: "p", count: 16_000) + "\r\n\r\n"
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            let (requests, error) = parseAll(Array(line.utf8), pieces: [1])
            #expect(error == nil && requests.count == 1)
        }
        #expect(elapsed < .seconds(2))
    }
}

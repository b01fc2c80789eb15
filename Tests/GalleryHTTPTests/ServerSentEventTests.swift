import GalleryHTTP
import Testing

/// The `text/event-stream` encoder.
@Suite("Server-Sent Events")
struct ServerSentEventTests {
    @Test("id, event, retry and data lines, then the empty line that dispatches")
    func fields() {
        let event = ServerSentEvent(id: "42", event: "op", data: "{\"a\":1}", retryMilliseconds: 500)
        #expect(String(decoding: event.encoded(), as: UTF8.self) == "id: 42\nevent: op\nretry: 500\ndata: {\"a\":1}\n\n")
        #expect(String(decoding: ServerSentEvent(data: "").encoded(), as: UTF8.self) == "data: \n\n")
    }

    @Test("Multi-line data becomes one data line per line, whatever the line breaks")
    func multiLine() {
        let event = ServerSentEvent(data: "one\ntwo\r\nthree\rfour\n")
        #expect(String(decoding: event.encoded(), as: UTF8.self)
                == "data: one\ndata: two\ndata: three\ndata: four\ndata: \n\n")
    }

    @Test("Line breaks cannot forge fields through id or event; NUL is dropped from id")
    func noInjection() {
        let event = ServerSentEvent(id: "1\ndata: forged\0", event: "x\r\nid: 9", data: "ok")
        #expect(String(decoding: event.encoded(), as: UTF8.self) == "id: 1data: forged\nevent: xid: 9\ndata: ok\n\n")
        #expect(String(decoding: ServerSentEvent.comment("ping\nx"), as: UTF8.self) == ": pingx\n\n")
        #expect(ServerSentEvent.streamHeaders["content-type"] == "text/event-stream; charset=utf-8")
    }
}

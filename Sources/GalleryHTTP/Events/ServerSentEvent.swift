/// One Server-Sent Event, encoded as the `text/event-stream` lines a browser's `EventSource` reads
/// (HTML Living Standard §9.2.6).
package struct ServerSentEvent: Hashable, Sendable {
    /// The `id:` line: the browser sends it back as `Last-Event-ID` when it reconnects.
    package var id: String?
    /// The `event:` line: the type a page listens for with `addEventListener` ("message" when nil).
    package var event: String?
    /// The payload; each of its lines (split on CRLF, LF or CR) becomes one `data:` line.
    package var data: String
    /// The `retry:` line: the reconnection delay the browser should use, in milliseconds.
    package var retryMilliseconds: Int?

    /// Makes an event from its parts.
    package init(id: String? = nil, event: String? = nil, data: String, retryMilliseconds: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retryMilliseconds = retryMilliseconds
    }

    /// The event's bytes, ending with the empty line that dispatches it.
    ///
    /// Line breaks in `id` and `event` would start new fields, so they are removed, and so is NUL in
    /// `id` (a browser ignores an id that holds NUL).
    package func encoded() -> [UInt8] {
        var text = ""
        if let id { text += "id: " + id.filter { !$0.isNewline && $0 != "\0" } + "\n" }
        if let event { text += "event: " + event.filter { !$0.isNewline } + "\n" }
        if let retryMilliseconds { text += "retry: \(max(retryMilliseconds, 0))\n" }
        for line in Self.lines(of: data) { text += "data: " + line + "\n" }
        text += "\n"
        return Array(text.utf8)
    }

    /// A comment line, which keeps an idle stream (and any proxy) from timing out and is not dispatched.
    package static func comment(_ text: String) -> [UInt8] {
        Array((": " + text.filter { !$0.isNewline } + "\n\n").utf8)
    }

    /// The response fields that start an event stream.
    package static var streamHeaders: HTTPHeaders {
        HTTPHeaders([("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store")])
    }

    /// `text` split on CRLF, LF and CR (an empty text is one empty line).
    private static func lines(of text: String) -> [Substring] {
        // Swift treats "\r\n" as one Character, so splitting on isNewline handles all three breaks.
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
    }
}

/// The bounds a request parser enforces; every one has a status it is refused with.
package struct HTTPLimits: Hashable, Sendable {
    /// The request line, without its CRLF (414 past it).
    package var maxRequestLineBytes: Int
    /// The whole head: request line, header lines and their CRLFs (431 past it).
    package var maxHeaderBytes: Int
    /// The number of header fields (431 past it).
    package var maxHeaderCount: Int
    /// The largest `Content-Length` the parser accepts at all (413 past it). Routes that buffer a
    /// body check their own, smaller bound with `HTTPBodyCollector`.
    package var maxContentLength: UInt64

    /// Makes limits from their parts.
    package init(maxRequestLineBytes: Int, maxHeaderBytes: Int, maxHeaderCount: Int, maxContentLength: UInt64) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxContentLength = maxContentLength
    }

    /// Request line 8 KiB, head 16 KiB, 100 fields, bodies up to 64 GiB (streamed routes).
    package static let standard = HTTPLimits(
        maxRequestLineBytes: 8 * 1024,
        maxHeaderBytes: 16 * 1024,
        maxHeaderCount: 100,
        maxContentLength: 64 << 30)

    /// The bound for bodies a route reads whole (JSON): 1 MiB.
    package static let maxBufferedBodyBytes = 1 << 20
}

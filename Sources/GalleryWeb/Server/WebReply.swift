import Foundation

/// What a connection's lane job hands back to its event loop to write for one request.
enum WebReply: Sendable {
    /// A whole response; the connection closes after it unless `keepAlive`.
    case response([UInt8], keepAlive: Bool)
    /// A head, then a blob's bytes streamed a piece at a time.
    case blob(head: [UInt8], body: WebBlobBody, keepAlive: Bool)
    /// An event stream: its first bytes, the feed's cursor after them and the stream's ID.
    case events(first: [UInt8], cursor: Int, stream: Int)
}

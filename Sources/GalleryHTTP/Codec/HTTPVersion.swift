/// The two protocol versions this codec speaks.
package enum HTTPVersion: String, Hashable, Sendable {
    /// HTTP/1.0: connections close after each response unless the client asks for keep-alive.
    case http1_0 = "HTTP/1.0"
    /// HTTP/1.1: connections persist unless either side sends `Connection: close`.
    case http1_1 = "HTTP/1.1"
}

/// A connection that carries bytes (or, in tests, values) through a pipeline of handlers:
/// inbound data enters at the head and flows to the tail, outbound data flows from the tail to
/// the head and leaves the channel there (modelled on swift-nio's `Channel`, but small).
///
/// A channel runs its pipeline on one thread at a time, its *channel thread*: the event loop it is
/// registered with, the reader thread of a threaded channel, or the caller for an in-memory
/// channel. Methods marked "channel thread" are called there only; `execute` hands work to it.
package protocol Channel: AnyObject, Sendable {
    /// The handlers, head first.
    var pipeline: ChannelPipeline { get }
    /// The peer's address as "ip:port" ("[ip]:port" for IPv6), or a label.
    var remote: String { get }
    /// Runs `task` on the channel thread; callable from any thread.
    func execute(_ task: @escaping @Sendable () -> Void)
    /// Outbound data that reached the head of the pipeline. Channel thread.
    func writeOutbound(_ data: Any)
    /// Asks the channel to write what its outbound source holds, as room allows. Channel thread.
    func flush()
    /// Stops (false) or resumes (true) reading from the peer: backpressure. Channel thread.
    func setReading(_ on: Bool)
    /// Closes the channel; its pipeline sees `channelInactive` once. Channel thread.
    func close()
}

/// What an outbound byte source has for its channel.
package enum OutboundPull: Sendable {
    /// Bytes to write next.
    case bytes([UInt8])
    /// Nothing waits now.
    case idle
    /// The source is closed and everything it held has been handed out: close once written.
    case finished
}

/// Where a socket channel takes the bytes it writes, pulled only when the socket has room: the
/// source keeps its own priorities and limits (per-connection backpressure stays with it).
package protocol OutboundByteSource: AnyObject, Sendable {
    /// The next bytes to write; with `waiting`, blocks until some wait or the source finishes.
    func pull(waiting: Bool) -> OutboundPull
    /// Counts bytes that reached the socket.
    func wrote(_ count: Int)
    /// The channel is ending (its input ended or a write failed): drop what waits; `pull` returns
    /// `.finished` once a farewell already queued is out.
    func closeSource()
}

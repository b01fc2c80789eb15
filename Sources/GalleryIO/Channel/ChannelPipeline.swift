/// The handlers of one channel, head first: inbound events enter at the head, outbound writes
/// enter at the tail (or at any handler's context) and leave through the channel.
///
/// Used on the channel thread only (see `Channel`).
package final class ChannelPipeline {
    /// The owning channel (weak: the channel owns its pipeline).
    package weak var channel: (any Channel)?
    private var handlers: [any ChannelHandler] = []
    private var contexts: [ChannelHandlerContext] = []

    package init() {}

    /// Appends a handler at the tail.
    package func addLast(_ handler: any ChannelHandler) {
        contexts.append(ChannelHandlerContext(pipeline: self, index: handlers.count))
        handlers.append(handler)
    }

    /// The channel is connected.
    package func fireChannelActive() { inbound(from: 0) { $0.channelActive(context: $1) } }
    /// Data arrived from the peer.
    package func fireChannelRead(_ data: Any) { inbound(from: 0) { $0.channelRead(context: $1, data) } }
    /// The channel closed.
    package func fireChannelInactive(reason: String) { inbound(from: 0) { $0.channelInactive(context: $1, reason: reason) } }
    /// Outbound data from outside the pipeline, entering at the tail.
    package func write(_ data: Any) { outbound(from: handlers.count - 1, write: data) }
    /// A flush entering at the tail.
    package func flush() { outbound(from: handlers.count - 1, write: nil) }

    /// Calls `event` on the handler at `index` (nothing past the tail).
    package func inbound(from index: Int, _ event: (any ChannelHandler, ChannelHandlerContext) -> Void) {
        guard index < handlers.count else { return }
        event(handlers[index], contexts[index])
    }

    /// Passes a write (or a flush, when `data` is nil) to the handler at `index`, or to the
    /// channel once past the head.
    package func outbound(from index: Int, write data: Any?) {
        if index < 0 {
            if let data { channel?.writeOutbound(data) } else { channel?.flush() }
            return
        }
        if let data { handlers[index].write(context: contexts[index], data) } else { handlers[index].flush(context: contexts[index]) }
    }
}

/// One stage of a channel pipeline. Every event has a default that passes it on, so a handler
/// implements only what it changes (swift-nio's `ChannelInboundHandler` and
/// `ChannelOutboundHandler` in one protocol). Called on the channel thread only.
package protocol ChannelHandler: AnyObject {
    /// The channel is connected: a client may start its handshake.
    func channelActive(context: ChannelHandlerContext)
    /// Data from the peer (bytes at the head, decoded values further on).
    func channelRead(context: ChannelHandlerContext, _ data: Any)
    /// The channel is closed, for `reason`.
    func channelInactive(context: ChannelHandlerContext, reason: String)
    /// An event a handler tells the ones after it (e.g. "authenticated").
    func userInboundEventTriggered(context: ChannelHandlerContext, _ event: Any)
    /// A handler failed on inbound data: the tail decides what closes.
    func errorCaught(context: ChannelHandlerContext, _ error: any Error)
    /// Data to the peer, from the tail towards the head.
    func write(context: ChannelHandlerContext, _ data: Any)
    /// Asks for what was written to go out.
    func flush(context: ChannelHandlerContext)
}

extension ChannelHandler {
    package func channelActive(context: ChannelHandlerContext) { context.fireChannelActive() }
    package func channelRead(context: ChannelHandlerContext, _ data: Any) { context.fireChannelRead(data) }
    package func channelInactive(context: ChannelHandlerContext, reason: String) { context.fireChannelInactive(reason: reason) }
    package func userInboundEventTriggered(context: ChannelHandlerContext, _ event: Any) { context.fireUserInboundEventTriggered(event) }
    package func errorCaught(context: ChannelHandlerContext, _ error: any Error) { context.fireErrorCaught(error) }
    package func write(context: ChannelHandlerContext, _ data: Any) { context.write(data) }
    package func flush(context: ChannelHandlerContext) { context.flush() }
}

/// A handler's place in its pipeline: passes events to the next handler inbound (towards the
/// tail) or outbound (towards the head, then the channel).
package final class ChannelHandlerContext {
    /// The pipeline this context belongs to.
    package unowned let pipeline: ChannelPipeline
    /// The handler's index, head = 0.
    package let index: Int

    package init(pipeline: ChannelPipeline, index: Int) {
        self.pipeline = pipeline
        self.index = index
    }

    /// The channel of the pipeline.
    package var channel: (any Channel)? { pipeline.channel }

    package func fireChannelActive() { pipeline.inbound(from: index + 1) { $0.channelActive(context: $1) } }
    package func fireChannelRead(_ data: Any) { pipeline.inbound(from: index + 1) { $0.channelRead(context: $1, data) } }
    package func fireChannelInactive(reason: String) { pipeline.inbound(from: index + 1) { $0.channelInactive(context: $1, reason: reason) } }
    package func fireUserInboundEventTriggered(_ event: Any) { pipeline.inbound(from: index + 1) { $0.userInboundEventTriggered(context: $1, event) } }
    package func fireErrorCaught(_ error: any Error) { pipeline.inbound(from: index + 1) { $0.errorCaught(context: $1, error) } }
    package func write(_ data: Any) { pipeline.outbound(from: index - 1, write: data) }
    package func flush() { pipeline.outbound(from: index - 1, write: nil) }
    /// Closes the channel.
    package func close() { pipeline.channel?.close() }
}

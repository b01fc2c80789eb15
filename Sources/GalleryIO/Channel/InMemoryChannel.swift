import Foundation

/// A channel with no socket, for tests (swift-nio's `EmbeddedChannel`): the test feeds inbound
/// data with `receive` and reads what the pipeline wrote in `written`; work handed to `execute`
/// runs at once on the caller's thread, which is the channel thread.
// unchecked Sendable: a test drives it from one thread at a time (the caller's thread is the channel thread)
package final class InMemoryChannel: Channel, @unchecked Sendable {
    package let pipeline = ChannelPipeline()
    package let remote: String
    /// Everything that reached the head of the pipeline, oldest first.
    private(set) var written: [Any] = []
    /// Whether `close()` was called.
    private(set) var isClosed = false
    /// Whether the channel reads (false after `setReading(false)`).
    private(set) var isReading = true
    /// Where an outbound byte source is drained on `flush`, when one is set.
    package var source: (any OutboundByteSource)?

    /// Makes a channel with `handlers`, head first.
    package init(remote: String = "in-memory", handlers: [any ChannelHandler]) {
        self.remote = remote
        for handler in handlers { pipeline.addLast(handler) }
        pipeline.channel = self
    }

    package func execute(_ task: @escaping @Sendable () -> Void) { task() }

    package func writeOutbound(_ data: Any) { written.append(data) }

    package func flush() {
        guard let source else { return }
        while case .bytes(let bytes) = source.pull(waiting: false) {
            written.append(bytes)
            source.wrote(bytes.count)
        }
    }

    package func setReading(_ on: Bool) { isReading = on }

    package func close() {
        guard !isClosed else { return }
        isClosed = true
        pipeline.fireChannelInactive(reason: "closed")
    }

    /// Feeds inbound data at the head of the pipeline.
    package func receive(_ data: Any) { pipeline.fireChannelRead(data) }

    /// Takes what was written so far, of type `T`.
    package func takeWritten<T>(_ type: T.Type = T.self) -> [T] {
        defer { written.removeAll() }
        return written.compactMap { $0 as? T }
    }
}

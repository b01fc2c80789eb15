import Foundation

/// A channel over blocking socket streams with two threads of its own: a reader that feeds the
/// pipeline (its channel thread) and a writer that writes what the outbound source holds.
///
/// The original I/O of a peer connection, kept selectable next to the event loop
/// (`NodeConfiguration.io`). `execute` runs its task at once on the caller's thread: what a
/// connection hands it (a flush, which the writer does not need, and a close) is thread-safe.
// unchecked Sendable: the writer's state is under `condition`; the pipeline and read buffer are its reader thread's
package final class ThreadedChannel: Channel, @unchecked Sendable {
    package let pipeline = ChannelPipeline()
    package let streams: StreamPair
    package let source: any OutboundByteSource
    /// How long the writer may take to send a farewell once reading ended, before the streams are
    /// closed under it.
    package let closeGrace: UInt64
    private let condition = NSCondition()
    private var writerFinished = false
    private var writeFailure: String?
    private var readBufferSize: Int
    private let fullReadBufferSize: Int

    /// A channel over `streams` with `handlers`, head first. The reader starts with a buffer of
    /// `initialReadBufferSize` bytes (small: a connection still in its handshake costs little)
    /// until `useFullReadBuffer()`.
    package init(streams: StreamPair, source: any OutboundByteSource, handlers: [any ChannelHandler],
         initialReadBufferSize: Int, fullReadBufferSize: Int = 64 << 10, closeGrace: UInt64) {
        self.streams = streams
        self.source = source
        self.readBufferSize = initialReadBufferSize
        self.fullReadBufferSize = fullReadBufferSize
        self.closeGrace = closeGrace
        for handler in handlers { pipeline.addLast(handler) }
        pipeline.channel = self
    }

    package var remote: String { streams.remote }

    /// Starts the reader and writer threads; the reader fires `channelActive` first.
    package func start() {
        Thread.detachNewThread { [self] in readLoop() }
        Thread.detachNewThread { [self] in writeLoop() }
    }

    /// Reads with a full-size buffer from now on. Reader thread (the pipeline) only.
    package func useFullReadBuffer() {
        readBufferSize = fullReadBufferSize
    }

    package func execute(_ task: @escaping @Sendable () -> Void) { task() }

    package func writeOutbound(_ data: Any) {}

    /// The writer waits on the source: nothing to do.
    package func flush() {}

    /// The reader hands bytes to the pipeline synchronously: a pipeline that is behind holds it.
    package func setReading(_ on: Bool) {}

    /// Closes both streams: blocked reads and writes return.
    package func close() { streams.close() }

    private func writeLoop() {
        writing: while true {
            switch source.pull(waiting: true) {
            case .bytes(let bytes):
                guard write(bytes) else {
                    condition.withLock { writeFailure = "write failed" }
                    source.closeSource()
                    break writing
                }
                source.wrote(bytes.count)
            case .idle:
                continue
            case .finished:
                break writing
            }
        }
        streams.close()
        condition.withLock {
            writerFinished = true
            condition.broadcast()
        }
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = streams.output.write(buffer.baseAddress! + offset, maxLength: buffer.count - offset)
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    private func readLoop() {
        pipeline.fireChannelActive()
        var buffer = [UInt8](repeating: 0, count: readBufferSize)
        var reason = "closed by peer"
        while true {
            if buffer.count != readBufferSize { buffer = [UInt8](repeating: 0, count: readBufferSize) }
            let count = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 {
                if count < 0 { reason = streams.input.streamError.map { "read failed: \($0.localizedDescription)" } ?? "read failed" }
                break
            }
            pipeline.fireChannelRead(Array(buffer[..<count]))
        }
        // The writer closes the streams once it has sent what waits (a farewell); a writer stuck on
        // a peer that does not read has them closed under it after `closeGrace`.
        source.closeSource()
        condition.withLock {
            let deadline = Date().addingTimeInterval(Double(closeGrace) / 1e9)
            while !writerFinished && condition.wait(until: deadline) {}
        }
        streams.close()
        let failure = condition.withLock { () -> String? in
            while !writerFinished { condition.wait() }
            return writeFailure
        }
        pipeline.fireChannelInactive(reason: failure ?? reason)
    }
}

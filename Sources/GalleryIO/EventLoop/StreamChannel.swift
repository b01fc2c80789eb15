import Foundation

/// A channel over a `NonBlockingSocket` on an event loop: it is the delegate of the socket's
/// Foundation streams, reads when told `hasBytesAvailable` (into the loop's shared buffer, so an
/// idle connection holds none), and writes what its outbound source holds while the socket has
/// room, resuming on `hasSpaceAvailable`. Its channel thread is the loop's thread, to which its
/// state is `LoopBound` (`execute` hops there first).
package final class StreamChannel: NSObject, Channel, StreamDelegate, Sendable {
    /// The handlers, head first (on the loop only, as every `Channel`'s).
    package var pipeline: ChannelPipeline { boundPipeline.value }
    private let boundPipeline: LoopBound<ChannelPipeline>
    package let socket: NonBlockingSocket
    /// Where outbound bytes come from when the socket has room.
    package let source: any OutboundByteSource
    private var pending: [UInt8] { _read { yield boundPending.value } _modify { yield &boundPending.value } }
    private let boundPending: LoopBound<[UInt8]>
    private var pendingOffset: Int { _read { yield boundPendingOffset.value } _modify { yield &boundPendingOffset.value } }
    private let boundPendingOffset: LoopBound<Int>
    private var reading: Bool { _read { yield boundReading.value } _modify { yield &boundReading.value } }
    private let boundReading: LoopBound<Bool>
    var isClosed: Bool { _read { yield boundIsClosed.value } _modify { yield &boundIsClosed.value } }
    private let boundIsClosed: LoopBound<Bool>
    private var active: Bool { _read { yield boundActive.value } _modify { yield &boundActive.value } }
    private let boundActive: LoopBound<Bool>
    /// The most reads per readiness event, so one busy peer cannot starve the loop's others.
    private static let readsPerEvent = 4

    /// Makes a channel for a socket (not yet registered) with `handlers`, head first.
    package init(socket: NonBlockingSocket, source: any OutboundByteSource, handlers: [any ChannelHandler]) {
        self.socket = socket
        self.source = source
        boundPipeline = LoopBound(ChannelPipeline(), owner: socket.loop.owner)
        boundPending = LoopBound([], owner: socket.loop.owner)
        boundPendingOffset = LoopBound(0, owner: socket.loop.owner)
        boundReading = LoopBound(true, owner: socket.loop.owner)
        boundIsClosed = LoopBound(false, owner: socket.loop.owner)
        boundActive = LoopBound(false, owner: socket.loop.owner)
        super.init()
        // Not shared yet: no other thread can reach the pipeline before `init` returns.
        for handler in handlers { boundPipeline.uncheckedValue.addLast(handler) }
        boundPipeline.uncheckedValue.channel = self
    }

    package var remote: String { socket.remote }

    /// The loop the channel runs on.
    package var loop: EventLoop { socket.loop }

    /// Registers the socket with its loop and fires `channelActive`; closes (with the reason)
    /// when the loop cannot watch it. Runs on the loop.
    package func activate() {
        execute { [self] in
            socket.input.delegate = self
            socket.output.delegate = self
            do {
                try socket.register()
            } catch {
                close(reason: "cannot watch the socket: \(error.localizedDescription)")
                return
            }
            active = true
            pipeline.fireChannelActive()
            if reading { readAvailable() }
        }
    }

    package func execute(_ task: @escaping @Sendable () -> Void) {
        socket.loop.execute(task)
    }

    package func writeOutbound(_ data: Any) {
        guard let bytes = data as? [UInt8], !isClosed else { return }
        pending += bytes
        drain()
    }

    package func flush() {
        drain()
    }

    package func setReading(_ on: Bool) {
        guard on != reading else { return }
        reading = on
        socket.setReading(on)
    }

    package func close() {
        close(reason: "closed")
    }

    /// Closes the socket and tells the pipeline why, once.
    package func close(reason: String) {
        guard !isClosed else { return }
        isClosed = true
        pending = []
        socket.close()
        pipeline.fireChannelInactive(reason: reason)
    }

    // MARK: Stream events

    package func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        guard !isClosed else { return }
        switch eventCode {
        case .hasBytesAvailable:
            readAvailable()
        case .hasSpaceAvailable:
            drain()
        case .endEncountered:
            close(reason: "closed by peer")
        case .errorOccurred:
            let what = aStream === socket.input ? "read failed" : "write failed"
            close(reason: aStream.streamError.map { "\(what): \($0.localizedDescription)" } ?? what)
        default:
            break
        }
    }

    private func readAvailable() {
        let buffer = socket.loop.readBuffer
        for _ in 0..<Self.readsPerEvent {
            guard reading, !isClosed else { return }
            let count = socket.input.read(buffer.baseAddress!, maxLength: buffer.count)
            guard count > 0 else { return }
            pipeline.fireChannelRead(Array(buffer[..<count]))
            // A short read emptied the socket: no read to find it empty (the loop reports what
            // comes next, an end of stream included).
            if count < buffer.count { return }
        }
    }

    /// Writes pending bytes, then what the source holds, until the socket is full or nothing
    /// waits; closes once the source is finished and everything is written.
    private func drain() {
        guard active else { return }
        while !isClosed {
            if pendingOffset == pending.count {
                pending.removeAll(keepingCapacity: pending.count <= 64 << 10)
                pendingOffset = 0
                switch source.pull(waiting: false) {
                case .bytes(let bytes): pending = bytes
                case .idle: return
                case .finished:
                    close(reason: "closed")
                    return
                }
            }
            let written = pending.withUnsafeBufferPointer {
                socket.output.write($0.baseAddress! + pendingOffset, maxLength: $0.count - pendingOffset)
            }
            if written < 0 { return }  // `errorOccurred` closed the channel.
            if written > 0 { source.wrote(written) }
            pendingOffset += written
            if pendingOffset < pending.count { return }  // Full: `hasSpaceAvailable` resumes.
        }
    }
}

import Foundation
import GalleryHTTP

/// The answers a connection writes over time: a blob a piece at a time, an event stream as the
/// feed grows, and the clock (`tick`) that closes what is stuck.
extension WebConnection {
    /// Reads the blob's next piece on the lane when the outbox has room; ends the answer once the
    /// span is sent.
    func continueBlob() {
        guard case .blob(let body, let offset, let reading, let keepAlive) = state, !reading else { return }
        if offset >= body.span.upperBound {
            lane.submit { body.close() }
            responded(keepAlive: keepAlive)
            return
        }
        guard outbox.buffered < WebOutbox.lowWater else { return }  // `outboxDrained` comes back.
        state = .blob(body, offset: offset, reading: true, keepAlive: keepAlive)
        lane.submit { [self] in
            let piece = body.piece(at: offset) { [weak self] in
                guard let self else { return }
                channel.execute { self.continueBlob() }
            }
            channel.execute { self.blobPiece(piece) }
        }
    }

    /// A piece read on the lane.
    private func blobPiece(_ read: WebBlobStream.Piece) {
        assertOnLoop()
        guard case .blob(let body, let offset, _, let keepAlive) = state else { return }
        let piece: [UInt8]
        switch read {
        case .bytes(let bytes):
            piece = bytes
        case .later:
            // Streaming from a peer: the waker comes back; bytes that came meanwhile are read now.
            state = .blob(body, offset: offset, reading: false, keepAlive: keepAlive)
            if body.isReady { continueBlob() }
            return
        case .failed:
            // The blob cannot be read (removed meanwhile), or the bytes streamed from a peer did
            // not hash to the blob's hash: the promised length is not kept, the response aborted.
            close(reason: "cannot read the blob")
            return
        }
        state = .blob(body, offset: offset + piece.count, reading: false, keepAlive: keepAlive)
        outboxWrite(piece)
        continueBlob()
    }

    /// The feed has messages (any thread): pulls them on the loop, once per burst.
    func wake() {
        guard !wakePending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        channel.execute { [self] in
            wakePending.store(false, ordering: .releasing)
            pullEvents()
        }
    }

    /// Writes the messages past the stream's cursor; drops a reader that lets more than
    /// `Limits.outboxLimit` bytes pile up (it resumes with `Last-Event-ID`), and ends the stream
    /// when the feed stops.
    func pullEvents() {
        assertOnLoop()
        guard case .events(let stream, let cursor) = state else { return }
        guard let (bytes, next) = api.feed.messages(after: cursor) else {
            close(reason: "the feed stopped")
            return
        }
        state = .events(stream: stream, cursor: next)
        guard !bytes.isEmpty else { return }
        if outbox.buffered + bytes.count > limits.outboxLimit {
            close(reason: "the event stream's reader is too slow")
            return
        }
        outboxWrite(bytes)
    }

    /// The server's clock, about twice a second: closes a head slower than `headerTimeout`, a
    /// connection silent for `idleLimit` (an idle keep-alive, a body that stopped coming, a reader
    /// that stopped taking its answer), and writes an event stream's keep-alive comment.
    func tick(now: UInt64) {
        assertOnLoop()
        let idle = UInt64(clamping: limits.idleLimit.nanoseconds)
        let lastWrite = outbox.lastWrite
        switch state {
        case .closed:
            return
        case .events:
            if outbox.buffered > 0, now > lastWrite, now - lastWrite > idle {
                close(reason: "the event stream's reader stopped reading")
            } else if now > lastWrite, now - lastWrite >= WebEventFeed.keepAliveNanoseconds, outbox.buffered == 0 {
                outboxWrite(ServerSentEvent.comment("keep-alive"))
            }
            return
        case .answering:
            return  // The node is working on it.
        default:
            break
        }
        if let headStarted, now > headStarted, now - headStarted > UInt64(clamping: limits.headerTimeout.nanoseconds) {
            close(reason: "the request head took too long")
        } else if outbox.buffered > 0 {
            if now > lastWrite, now - lastWrite > idle { close(reason: "the client stopped reading") }
        } else if now > lastRead, now - lastRead > idle, now > lastWrite, now - lastWrite > idle {
            close(reason: "idle")
        }
    }
}

import Foundation
import GalleryControl
import GalleryHTTP
import GalleryIO
import GalleryWire

/// One browser connection: requests read with the sans-I/O codec (`HTTPRequestParser`) and
/// answered in order (keep-alive), on the connection's own thread (see `WebServer` for why).
///
/// The security checks run on each request's head, before its body is read; a refused request
/// whose body is over 1 MiB closes the connection unread, a smaller one is read and dropped. Codec
/// refusals (400, 413, 414, 431, 501, 505) close the connection. Upload bodies go to an
/// `UploadReceiver` as they arrive; blobs are streamed from the blob store 256 KiB at a time; an
/// event stream holds the connection until the client goes.
final class WebConnection: @unchecked Sendable {
    /// What the request being read is for.
    private enum State {
        case idle
        case buffered(HTTPRequestHead, HTTPBodyCollector)
        case refused(HTTPRequestHead, WebResponse)
        case uploading(HTTPRequestHead, UploadReceiver)
    }

    private let pair: StreamPair
    private let api: WebAPI
    private var state = State.idle
    private let activityLock = NSLock()
    // Guarded by `activityLock`.
    private var lastActivity = ContinuousClock.now
    private var streamingEvents = false

    /// True when the connection neither read nor wrote for `limit` and is not an event stream
    /// (which writes a comment every 15 s): a client holding a connection and a thread for nothing.
    func isIdle(for limit: Duration) -> Bool {
        activityLock.withLock { !streamingEvents && ContinuousClock.now - lastActivity > limit }
    }

    /// Closes the connection; its thread ends.
    func close() { pair.close() }

    private func active() { activityLock.withLock { lastActivity = .now } }

    /// Bytes read and written at a time.
    static let chunkSize = 256 * 1024

    init(pair: StreamPair, api: WebAPI) {
        self.pair = pair
        self.api = api
    }

    /// Serves requests until the client closes, a response closes, or the codec refuses.
    func run() {
        defer {
            if case .uploading(_, let receiver) = state {
                api.uploads.fail(receiver.upload, reason: "the upload was interrupted")
                receiver.discard()
            }
            pair.close()
        }
        var parser = HTTPRequestParser()
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        while true {
            let count = pair.input.read(&buffer, maxLength: buffer.count)
            if count <= 0 { return }
            active()
            parser.receive(buffer[0..<count])
            do {
                while let event = try parser.next() {
                    guard handle(event) else { return }
                }
            } catch {
                let refusal = WebRefusal(error.status.code, "badRequest", error.errorDescription ?? "bad request")
                _ = pair.output.writeAll(WebResponse.refusal(refusal).serialized(for: nil, keepAlive: false))
                return
            }
        }
    }

    /// Takes one parser event; false when the connection must close.
    private func handle(_ event: HTTPRequestEvent) -> Bool {
        switch event {
        case .head(let head):
            return begin(head)
        case .body(let chunk):
            switch state {
            case .buffered(let head, var collector):
                collector.append(chunk)
                state = .buffered(head, collector)
            case .uploading(_, let receiver):
                do {
                    try receiver.append(chunk)
                    if receiver.progressDue() { publishProgress(of: receiver) }
                } catch {
                    api.uploads.fail(receiver.upload, reason: "cannot store the bytes: \(error.localizedDescription)")
                    receiver.discard()
                    state = .idle
                    return write(.refusal(WebRefusal(500, "storage", error.localizedDescription)), for: nil, keepAlive: false)
                }
            case .idle, .refused:
                break
            }
            return true
        case .end:
            let current = state
            state = .idle
            switch current {
            case .idle:
                return false
            case .refused(let head, let response):
                return write(response, for: head, keepAlive: head.keepAlive)
            case .buffered(let head, let collector):
                return finish(head, body: collector.bytes)
            case .uploading(let head, let receiver):
                let response: WebResponse
                do {
                    let (item, hash) = try api.uploads.finish(receiver)
                    let listing = api.node.read { replica in replica.item(item) }
                    let json = listing.map { WebItems.json(ControlCommands.listing($0, transfers: api.node.transfers)) }
                    response = .json(["item": json ?? NSNull(), "hash": hash, "lastEventId": api.feed.advance()])
                } catch {
                    response = .refusal(WebRefusal.from(error))
                }
                return write(response, for: head, keepAlive: head.keepAlive)
            }
        }
    }

    /// Checks a request's head and decides how its body is read.
    private func begin(_ head: HTTPRequestHead) -> Bool {
        var refusal: WebResponse?
        switch api.access.decide(head) {
        case .answer(let response): refusal = response
        case .allowed: refusal = WebAPI.routeProblem(head)
        }
        if refusal == nil, head.method == "PUT" {
            do {
                let receiver = try api.uploads.receiver(for: WebAPI.segments(head.path)[2], contentLength: head.contentLength)
                state = .uploading(head, receiver)
                return head.expectsContinue ? pair.output.writeAll(HTTPResponseHead.continueBytes) : true
            } catch {
                // The body is not read: the connection closes after the answer.
                return write(.refusal(WebRefusal.from(error)), for: head, keepAlive: false) && false
            }
        }
        if let refusal {
            guard head.contentLength <= UInt64(HTTPLimits.maxBufferedBodyBytes) else {
                return write(refusal, for: head, keepAlive: false) && false
            }
            state = .refused(head, refusal)
            return true
        }
        do {
            state = .buffered(head, try HTTPBodyCollector(head: head))
        } catch {
            let refusal = WebRefusal(error.status.code, "tooLarge", error.errorDescription ?? "the body is too large")
            return write(.refusal(refusal), for: head, keepAlive: false) && false
        }
        return head.expectsContinue ? pair.output.writeAll(HTTPResponseHead.continueBytes) : true
    }

    /// Answers a request whose body is in.
    private func finish(_ head: HTTPRequestHead, body: [UInt8]) -> Bool {
        switch api.respond(to: head, body: body) {
        case .complete(let response):
            return write(response, for: head, keepAlive: head.keepAlive)
        case .blob(let hash):
            return WebBlobs(node: api.node).serve(hash, for: head, to: pair.output) { [self] in active() }
        case .events(let after):
            var response = HTTPResponseHead(status: .ok, headers: WebResponse.withCommonFields(ServerSentEvent.streamHeaders))
            response.setConnection(for: head, keepAlive: true)
            guard pair.output.writeAll(response.serialized()) else { return false }
            activityLock.withLock { streamingEvents = true }
            api.feed.stream(to: pair.output, after: after)
            return false
        }
    }

    /// A `progress` event for an upload's placeholder (bytes received of the announced size).
    private func publishProgress(of receiver: UploadReceiver) {
        let event = api.node.read { replica -> WatchEvent? in
            guard let location = replica.location(of: receiver.item) else { return nil }
            return WatchEvent(event: .progress, id: receiver.item.description, gallery: location.gallery, index: location.index,
                              title: replica.item(receiver.item)?.title, state: "placeholder",
                              done: receiver.received, total: receiver.file.size)
        }
        if let event { api.feed.publishProgress([event]) }
    }

    private func write(_ response: WebResponse, for head: HTTPRequestHead?, keepAlive: Bool) -> Bool {
        defer { active() }
        return pair.output.writeAll(response.serialized(for: head, keepAlive: keepAlive)) && keepAlive
    }
}

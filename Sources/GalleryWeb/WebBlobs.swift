import Foundation
import GalleryHTTP
import GalleryIO
import GalleryNode
import Synchronization

/// `GET /blobs/HASH` (http-api.md section 4): the bytes streamed from the blob store a piece at a
/// time (never the whole blob in memory), with `ETag` = the hash, immutable caching, one `Range`,
/// `If-None-Match`, and the stored media type. Only PNG, JPEG and GIF are sent as such: any other
/// type a peer may have named is sent as `application/octet-stream` (with `nosniff`), so that no
/// blob is ever rendered as a document.
///
/// Bytes this node lacks but one of its items names are fetched from a connected peer that holds
/// them (`SyncNode.demandBytes`: verified before they are stored, shared by every request for
/// them): a whole-blob request is streamed as they arrive (`WebBlobStream`: the last byte after the
/// hash check, an abort on a mismatch), a `Range` or conditional one served once they are stored;
/// with no holder, the answer is at once a `notHeld` refusal saying why.
///
/// `reply` opens the blob and builds the head; the connection then asks `WebBlobBody` for one
/// piece at a time as its socket drains. Both touch the disk: on the web workers, never a loop.
struct WebBlobs {
    let node: SyncNode

    /// The media types sent as they are stored.
    static let imageTypes: Set<String> = ["image/png", "image/jpeg", "image/gif"]

    /// Answers `request` for blob `hash` through `done`, once: a whole refusal or `304`, or a head
    /// and the body to stream. Bytes fetched from a peer are served from `lane` once stored.
    func reply(_ hash: String, for request: HTTPRequestHead, lane: WebWorkers.Lane, done: @escaping @Sendable (WebReply) -> Void) {
        guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return done(Self.refuse(WebRefusal(400, "badHash", "a hash is 64 lower-case hex digits"), request))
        }
        if let held = reply(held: hash, for: request) { return done(held) }
        // A whole blob asked for is streamed as it arrives from the peer (see `WebBlobStream`).
        let stream = streaming(hash, for: request, lane: lane, done: done)
        let asked = node.demandBytes(named: hash, tap: stream) { result in
            lane.submit {
                switch result {
                case .success:
                    if let stream, !stream.claimReply() { return stream.verified() }
                    done(reply(held: hash, for: request)
                        ?? Self.refuse(WebRefusal(404, "notHeld", "the bytes arrived but cannot be read"), request))
                case .failure(let failure):
                    if let stream, !stream.claimReply() { return stream.fail() }
                    done(Self.refuse(keptFileRefusal(hash) ?? Self.refusal(failure), request))
                }
            }
        }
        if !asked { done(Self.refuse(WebRefusal(404, "unknownBlob", "no item on this node names blob \(hash)"), request)) }
    }

    /// A stream for the bytes of `hash` as they arrive, when the whole blob is asked for (no
    /// `Range`, no `If-None-Match`): its head goes out through `done` with the first bytes stored.
    private func streaming(_ hash: String, for request: HTTPRequestHead, lane: WebWorkers.Lane,
                           done: @escaping @Sendable (WebReply) -> Void) -> WebBlobStream? {
        guard request.headers["range"] == nil, request.headers["if-none-match"] == nil,
              let item = node.read({ $0.item(withContentHash: hash) }), let size = item.byteSize, size > 0 else { return nil }
        let type = item.mediaType.flatMap { Self.imageTypes.contains($0) ? $0 : nil } ?? "application/octet-stream"
        let blobs = node.configuration.blobs
        let node = node
        let stream = Mutex<WebBlobStream?>(nil)
        let made = WebBlobStream(hash: hash, size: Int(size)) {
            guard let stream = stream.withLock({ $0 }) else { return }
            lane.submit {
                let head = Self.head(hash, type: type, status: .ok, length: Int(size), for: request)
                let body = WebBlobBody(stream: stream, size: Int(size)) {
                    guard let reader = try? blobs?.openForReading(hash) else { return nil }
                    node.policies.originalRead(hash)
                    return reader
                }
                done(.blob(head: head.serialized(), body: body, keepAlive: request.keepAlive))
            }
        }
        stream.withLock { $0 = made }
        return made
    }

    /// The head of a blob answer: caching by hash, the media type, the length.
    private static func head(_ hash: String, type: String, status: HTTPStatus, length: Int, for request: HTTPRequestHead) -> HTTPResponseHead {
        var head = HTTPResponseHead(status: status)
        head.headers = WebResponse.withCommonFields(HTTPHeaders([
            ("ETag", "\"\(hash)\""), ("Cache-Control", "private, max-age=31536000, immutable"), ("Accept-Ranges", "bytes"),
        ]))
        head.headers.add("Content-Type", type)
        head.headers.add("Content-Length", String(length))
        head.setConnection(for: request, keepAlive: request.keepAlive)
        return head
    }

    /// The refusal for bytes kept in place whose file is gone or changed on disk (and that no
    /// peer could give): 404 `changedOnDisk`, saying which file and what happened to it.
    private func keptFileRefusal(_ hash: String) -> WebRefusal? {
        guard let problem = node.configuration.blobs?.keptFileProblem(for: hash) else { return nil }
        return WebRefusal(404, "changedOnDisk", "kept in place, \(problem): the bytes are not served")
    }

    /// The refusal for bytes that could not be had from a peer (http-api.md section 4).
    static func refusal(_ failure: DemandFailure) -> WebRefusal {
        let message = failure.localizedDescription
        return switch failure.cause {
        case .noPeerConnected, .notHeld, .hashMismatch: WebRefusal(404, "notHeld", message)
        case .timedOut: WebRefusal(504, "notHeld", message)
        case .stopped: WebRefusal(503, "notHeld", message)
        case .busy: WebRefusal(503, "busy", message)
        case .storage: WebRefusal(500, "storage", message)
        case .offline: WebRefusal(404, "notHeld", message)
        }
    }

    /// A refusal as a whole reply.
    private static func refuse(_ refusal: WebRefusal, _ request: HTTPRequestHead) -> WebReply {
        .response(WebResponse.refusal(refusal).serialized(for: request, keepAlive: request.keepAlive), keepAlive: request.keepAlive)
    }

    /// The answer from the blob store: `304`, a range refusal, or a head and the body to stream;
    /// nil when the store does not hold the blob.
    private func reply(held hash: String, for request: HTTPRequestHead) -> WebReply? {
        let keepAlive = request.keepAlive
        guard let blobs = node.configuration.blobs, blobs.contains(hash), let reader = try? blobs.openForReading(hash),
              let size = try? reader.size() else {
            return nil
        }
        do {
            // A file kept in place is hashed whole before the head is sent.
            try reader.verify()
        } catch {
            reader.close()
            return nil
        }
        node.policies.originalRead(hash)
        let stored = node.read { $0.item(withContentHash: hash)?.mediaType }
        let type = stored.flatMap { Self.imageTypes.contains($0) ? $0 : nil } ?? "application/octet-stream"
        var head = HTTPResponseHead(status: .ok)
        head.headers = WebResponse.withCommonFields(HTTPHeaders([
            ("ETag", "\"\(hash)\""), ("Cache-Control", "private, max-age=31536000, immutable"), ("Accept-Ranges", "bytes"),
        ]))
        head.headers.add("Content-Type", type)
        if request.headers["if-none-match"]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "\"\(hash)\"" }) == true {
            reader.close()
            head.status = .notModified
            head.setConnection(for: request, keepAlive: keepAlive)
            return .response(head.serialized(), keepAlive: keepAlive)
        }
        let range = HTTPByteRange(header: request.headers["range"], length: UInt64(size))
        head.status = range.status
        if let contentRange = range.contentRange(length: UInt64(size)) { head.headers.add("Content-Range", contentRange) }
        let span: Range<Int> = switch range {
        case .whole: 0..<size
        case .partial(let part): Int(part.lowerBound)..<Int(part.upperBound) + 1
        case .unsatisfiable: 0..<0
        }
        head.headers.add("Content-Length", String(span.count))
        head.setConnection(for: request, keepAlive: keepAlive)
        return .blob(head: head.serialized(), body: WebBlobBody(reader: reader, span: span), keepAlive: keepAlive)
    }
}

/// The bytes of a blob answer still to send: an open reader (or a stream of bytes arriving from a
/// peer) and the span of the blob asked for; read and closed on one connection's lane.
final class WebBlobBody: Sendable {
    /// Bytes read at a time.
    static let pieceSize = 256 << 10

    private let reader: (any BlobReader)?
    private let stream: WebBlobStream?
    private let openStored: @Sendable () -> (any BlobReader)?
    /// The bytes of the blob sent.
    let span: Range<Int>
    private let closed = Atomic(false)

    init(reader: any BlobReader, span: Range<Int>) {
        self.reader = reader
        self.span = span
        stream = nil
        openStored = { nil }
    }

    /// A body fed by `stream`, the whole blob of `size` bytes; `openStored` opens the stored blob
    /// for a reader that fell behind the stream.
    init(stream: WebBlobStream, size: Int, openStored: @escaping @Sendable () -> (any BlobReader)?) {
        reader = nil
        self.stream = stream
        self.openStored = openStored
        span = 0..<size
    }

    /// The next piece from `offset` (at most `pieceSize` bytes, never past the span): `.failed`
    /// when the read fails or the streamed bytes were wrong; `.later` (streaming only) when none
    /// has arrived yet, and then `waker` is called when some has.
    func piece(at offset: Int, waker: @escaping @Sendable () -> Void) -> WebBlobStream.Piece {
        guard !closed.load(ordering: .acquiring), offset < span.upperBound else { return .failed }
        if let stream {
            return stream.piece(at: offset, maximum: Self.pieceSize, waker: waker, openStored: openStored)
        }
        let bytes = (try? reader?.read(count: min(Self.pieceSize, span.upperBound - offset), at: offset)) ?? []
        return bytes.isEmpty ? .failed : .bytes(bytes)
    }

    /// Whether a piece is there to read (always for a stored blob).
    var isReady: Bool { stream?.isReady ?? true }

    /// Closes the reader; idempotent. A stream closed early takes no more bytes.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        reader?.close()
        stream?.fail()
    }
}

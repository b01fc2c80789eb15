import Foundation
import GalleryHTTP
import GalleryIO
import GalleryNode

/// `GET /blobs/HASH` (http-api.md section 4): the bytes streamed from the blob store 256 KiB at a
/// time (never the whole blob in memory), with `ETag` = the hash, immutable caching, one `Range`,
/// `If-None-Match`, and the stored media type. Only PNG, JPEG and GIF are sent as such: any other
/// type a peer may have named is sent as `application/octet-stream` (with `nosniff`), so that no
/// blob is ever rendered as a document.
struct WebBlobs {
    let node: SyncNode

    /// The media types sent as they are stored.
    static let imageTypes: Set<String> = ["image/png", "image/jpeg", "image/gif"]

    /// Writes the answer; false when the connection must close.
    ///
    /// - Parameter progressed: Called after each piece written (the connection's idle clock).
    func serve(_ hash: String, for request: HTTPRequestHead, to output: OutputStream, progressed: () -> Void = {}) -> Bool {
        let keepAlive = request.keepAlive
        func refuse(_ status: Int, _ code: String, _ message: String) -> Bool {
            output.writeAll(WebResponse.refusal(WebRefusal(status, code, message)).serialized(for: request, keepAlive: keepAlive))
                && keepAlive
        }
        guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return refuse(400, "badHash", "a hash is 64 lower-case hex digits")
        }
        guard let blobs = node.configuration.blobs, blobs.contains(hash), let reader = try? blobs.openForReading(hash),
              let size = try? reader.size() else {
            return refuse(404, "unknownBlob", "no blob \(hash) on this node")
        }
        defer { reader.close() }
        let stored = node.read { $0.item(withContentHash: hash)?.mediaType }
        let type = stored.flatMap { Self.imageTypes.contains($0) ? $0 : nil } ?? "application/octet-stream"
        var head = HTTPResponseHead(status: .ok)
        head.headers = WebResponse.withCommonFields(HTTPHeaders([
            ("ETag", "\"\(hash)\""), ("Cache-Control", "private, max-age=31536000, immutable"), ("Accept-Ranges", "bytes"),
        ]))
        head.headers.add("Content-Type", type)
        if request.headers["if-none-match"]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "\"\(hash)\"" }) == true {
            head.status = .notModified
            head.setConnection(for: request, keepAlive: keepAlive)
            return output.writeAll(head.serialized()) && keepAlive
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
        guard output.writeAll(head.serialized()) else { return false }
        var offset = span.lowerBound
        while offset < span.upperBound {
            guard let bytes = try? reader.read(count: min(WebConnection.chunkSize, span.upperBound - offset), at: offset),
                  !bytes.isEmpty, output.writeAll(bytes) else { return false }
            offset += bytes.count
            progressed()
        }
        return keepAlive
    }
}

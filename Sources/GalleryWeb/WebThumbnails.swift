import Foundation
import GalleryHTTP
import GalleryNode

/// `GET /thumbnails/HASH/SIZE` (http-api.md section 4): the JPEG thumbnail of the original whose
/// SHA-256 is HASH, whose long edge is at most SIZE (320 or 1280), with immutable caching and
/// `ETag` = `HASH-SIZE`. A thumbnail the node lacks is made now from the held original (on the
/// node's thumbnail pool, off every loop, one job shared by every request for it), or from the
/// original fetched from a peer; otherwise the answer is a 404 saying why, in the shape of
/// `/blobs/HASH`'s (`notHeld`: no reachable node holds the picture; `notAnImage`: this node cannot
/// decode it).
struct WebThumbnails {
    let node: SyncNode

    /// Answers `request` for the thumbnail of `hash` at `size` through `done`, once.
    func reply(_ hash: String, size: ThumbnailSize, for request: HTTPRequestHead, lane: WebWorkers.Lane, done: @escaping @Sendable (WebReply) -> Void) {
        guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return done(Self.refuse(WebRefusal(400, "badHash", "a hash is 64 lower-case hex digits"), request))
        }
        let tag = "\"\(hash)-\(size.rawValue)\""
        if request.headers["if-none-match"]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag }) == true,
           node.thumbnails?.derived.hasThumbnail(of: hash, size: size.rawValue) == true {
            var head = HTTPResponseHead(status: .notModified)
            head.headers = WebResponse.withCommonFields(HTTPHeaders([("ETag", tag), ("Cache-Control", Self.cacheControl)]))
            head.setConnection(for: request, keepAlive: request.keepAlive)
            return done(.response(head.serialized(), keepAlive: request.keepAlive))
        }
        ThumbnailReplicator.demand(of: hash, size: size, from: node.thumbnailReplicator) { result in
            lane.submit {
                switch result {
                case .success(let jpeg):
                    var response = WebResponse(status: .ok, contentType: "image/jpeg", body: jpeg)
                    response.headers = HTTPHeaders([("ETag", tag), ("Cache-Control", Self.cacheControl)])
                    done(.response(response.serialized(for: request, keepAlive: request.keepAlive), keepAlive: request.keepAlive))
                case .failure(let failure):
                    done(Self.refuse(Self.refusal(failure), request))
                }
            }
        }
    }

    /// Thumbnails never change: a name is one picture at one size.
    static let cacheControl = "private, max-age=31536000, immutable"

    /// The refusal for a thumbnail that cannot be had.
    static func refusal(_ failure: ThumbnailFailure) -> WebRefusal {
        let message = failure.localizedDescription
        return switch failure {
        case .undecodable: WebRefusal(404, "notAnImage", message)
        case .unavailable(let demand): WebBlobs.refusal(demand)
        case .unknown: WebRefusal(404, "unknownBlob", message)
        case .unreadable, .storage: WebRefusal(404, "storage", message)
        case .stopped: WebRefusal(503, "notHeld", message)
        }
    }

    /// A refusal as a whole reply.
    private static func refuse(_ refusal: WebRefusal, _ request: HTTPRequestHead) -> WebReply {
        .response(WebResponse.refusal(refusal).serialized(for: request, keepAlive: request.keepAlive), keepAlive: request.keepAlive)
    }
}

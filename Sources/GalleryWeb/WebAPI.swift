import Foundation
import GalleryControl
import GalleryHTTP
import GalleryNode
import GalleryWire

/// The routes of http-api.md sections 3 to 6 over one node: the page, the reading API, the
/// changes (`WebAPI+Changes`), and what the connection streams itself (blobs, events, upload
/// bodies). Every change goes through the node's typed commands and use cases (`ControlCommands`,
/// `MoveItems`, `AddImage`, `Drop`, `Upload`), as the command line's do; nothing here touches the
/// replica but to read it.
struct WebAPI: Sendable {
    /// What to do for a request whose body is in.
    enum Action {
        /// Write this response.
        case complete(WebResponse)
        /// Stream the blob of this hash.
        case blob(String)
        /// Send the thumbnail of this hash and size.
        case thumbnail(String, ThumbnailSize)
        /// Start an event stream after this ID (nil: at the present).
        case events(after: Int?)
    }

    let node: SyncNode
    let feed: WebEventFeed
    let uploads: WebUploads
    let access: WebAccess
    /// The space ID (`SpaceIdentity`).
    let space: String
    /// The directory the page's files are read from instead of the binary (`GALLERY_WEB_ASSETS`).
    var pageOverride: WebPageOverride?

    /// The refusal of a request without a route: 404, or 405 with `Allow`.
    static func refusal(_ problem: WebRoute.Problem, path: Substring) -> WebResponse {
        switch problem {
        case .notFound:
            return .refusal(WebRefusal(404, "notFound", "no such path"))
        case .method(let allowed):
            var response = WebResponse.refusal(WebRefusal(405, "method", "\(path) takes \(allowed.joined(separator: ", "))"))
            response.headers.add("Allow", allowed.joined(separator: ", "))
            return response
        }
    }

    /// The answer to a request that passed `WebAccess`, on its route, with its whole body.
    func respond(to request: HTTPRequestHead, route: WebRoute, body: [UInt8]) -> Action {
        do {
            return try answer(request, route: route, body: body)
        } catch {
            return .complete(.refusal(WebRefusal.from(error)))
        }
    }

    private func answer(_ request: HTTPRequestHead, route: WebRoute, body: [UInt8]) throws -> Action {
        switch route {
        case .page, .style, .script:
            return .complete(try asset(route, query: request.query))
        case .status:
            return .complete(status())
        case .galleries:
            return .complete(try galleries())
        case .items(let gallery):
            return .complete(try items(in: gallery, limit: try WebItems.limit(in: HTTPQuery(request.query))))
        case .trash:
            return .complete(try trash())
        case .members:
            return .complete(try members())
        case .blob(let hash):
            return .blob(hash)
        case .thumbnail(let hash, let size):
            return .thumbnail(hash, size)
        case .events:
            let resume = request.headers["last-event-id"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                ?? HTTPQuery(request.query)["after"].flatMap { Int($0) }
            return .events(after: resume)
        case .abandonUpload(let upload):
            try uploads.abandon(upload, reason: "cancelled")
            return .complete(.json(["cancelled": .string(upload), "lastEventId": advance()]))
        case .upload:
            // An upload's body is streamed by its connection (`WebConnection+Uploads`), never buffered here.
            throw WebRefusal(500, "internal", "an upload reached the buffered routes")
        case .change(let change):
            return .complete(try self.change(change, body: body))
        }
    }

    /// A file of the page: embedded, or from `GALLERY_WEB_ASSETS` when set (`WebPageOverride`).
    private func asset(_ route: WebRoute, query: Substring?) throws -> WebResponse {
        if let pageOverride { return try pageOverride.response(for: route) }
        guard let asset = embeddedAsset(route, query: query) else { throw WebRefusal(404, "notFound", "no such path") }
        return asset
    }

    /// `GET /api/status`.
    private func status() -> WebResponse {
        let replica = node.read { $0.id.description }
        let transfers = node.transferListings.map { listing -> WebJSON in
            ["transfer": .string(listing.transfer), "source": .string(listing.source), "hash": .string(listing.hash),
             "done": WebJSON(listing.done), "total": WebJSON(listing.total), "move": .bool(listing.move), "state": .string(listing.state),
             "secondsLeft": .number(listing.secondsLeft)]
        }
        let peers = node.peers.map { peer -> WebJSON in ["name": WebJSON(peer.name), "state": .string(peer.state.rawValue)] }
        return .json(["api": 1, "node": .string(node.configuration.name), "space": .string(space), "replica": .string(replica),
                      "origin": .string(access.origin), "lastEventId": advance(), "transfers": .array(transfers), "peers": .array(peers)])
    }

    /// `GET /api/galleries`.
    private func galleries() throws -> WebResponse {
        let (galleries, last) = try feed.snapshot { replica in
            try replica.galleries.map { ["name": .string($0), "count": WebJSON(try replica.count(in: $0))] as WebJSON }
        }
        return .json(["galleries": .array(galleries), "lastEventId": WebJSON(last)])
    }

    /// `GET /api/galleries/NAME/items`, or its first `limit` items with the gallery's `total`
    /// (`?limit=N`: the page's first screen, asked before the whole list).
    private func items(in name: String, limit: Int?) throws -> WebResponse {
        let ((items, total), last) = try feed.snapshot { [node] replica -> ([ItemListing], Int?) in
            guard let limit else {
                return (try ControlCommands.listings(replica, gallery: name, transfers: node.transfers).first?.items ?? [], nil)
            }
            // O(limit log n), not the whole gallery's n: the first screen of 10,000 items costs its own items only.
            let total = try replica.count(in: name)
            let first = try (0..<min(limit, total)).map { ControlCommands.listing(try replica.item(at: $0, in: name), transfers: node.transfers) }
            return (first, total)
        }
        // Written straight into bytes (`WebItems.encode`), not through `WebJSON` nor
        // `JSONEncoder`: for 10,000 items this answer is most of a large gallery's time to paint.
        let body = WebItems.encode(WebItems.Listing(gallery: name, items: items, lastEventId: last, total: total))
        return WebResponse(status: HTTPStatus(code: 200, reason: "OK"), contentType: "application/json", body: body)
    }
}

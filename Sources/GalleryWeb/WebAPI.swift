import Foundation
import GalleryControl
import GalleryHTTP
import GalleryModel
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
        /// Start an event stream after this ID (nil: at the present).
        case events(after: Int?)
    }

    let node: SyncNode
    let feed: WebEventFeed
    let uploads: WebUploads
    let access: WebAccess
    /// The space ID (`SpaceIdentity`).
    let space: String

    /// The methods each path takes (for 404 and 405 with `Allow`); `*` stands for one segment.
    static let routes: [(pattern: [String], methods: [String])] = [
        ([""], ["GET"]), (["assets", "app.css"], ["GET"]), (["assets", "app.js"], ["GET"]),
        (["api", "status"], ["GET"]), (["api", "galleries"], ["GET", "POST"]), (["api", "galleries", "*", "items"], ["GET"]),
        (["api", "items", "move"], ["POST"]), (["api", "items", "delete"], ["POST"]), (["api", "items", "update"], ["POST"]),
        (["api", "items", "add-url"], ["POST"]), (["api", "transfers", "cancel"], ["POST"]), (["api", "uploads"], ["POST"]),
        (["api", "uploads", "*"], ["PUT", "DELETE"]), (["api", "drops"], ["POST"]), (["api", "events"], ["GET"]),
        (["blobs", "*"], ["GET"]),
    ]

    /// The path's segments, percent-decoded.
    static func segments(_ path: Substring) -> [String] {
        path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { HTTPQuery.decode($0) }
    }

    /// nil when `request` names a known path with its method; else the 404 or 405 refusal.
    static func routeProblem(_ request: HTTPRequestHead) -> WebResponse? {
        let segments = segments(request.path)
        guard let route = routes.first(where: { route in
            route.pattern.count == segments.count && zip(route.pattern, segments).allSatisfy { $0 == "*" || $0 == $1 }
        }) else { return .refusal(WebRefusal(404, "notFound", "no such path")) }
        guard route.methods.contains(request.method) else {
            var response = WebResponse.refusal(WebRefusal(405, "method", "\(request.path) takes \(route.methods.joined(separator: ", "))"))
            response.headers.add("Allow", route.methods.joined(separator: ", "))
            return response
        }
        return nil
    }

    /// The answer to a request that passed `WebAccess` and `routeProblem`, with its whole body.
    func respond(to request: HTTPRequestHead, body: [UInt8]) -> Action {
        do {
            return try route(request, body: body)
        } catch {
            return .complete(.refusal(WebRefusal.from(error)))
        }
    }

    private func route(_ request: HTTPRequestHead, body: [UInt8]) throws -> Action {
        let segments = Self.segments(request.path)
        let path = String(request.path)
        if request.method == "GET", let directory = PageAssets.overrideDirectory, PageAssets.files.contains(where: { $0.path == path }) {
            guard let asset = PageAssets.read(request.path, from: directory) else {
                throw WebRefusal(500, "assets", "cannot read the page's files from \(directory.path) (\(PageAssets.overrideVariable))")
            }
            return .complete(WebResponse(status: .ok, contentType: asset.contentType, body: asset.body))
        }
        if request.method == "GET", let asset = PageAssets.files.first(where: { $0.path == path }) {
            return .complete(WebResponse(status: .ok, contentType: asset.contentType, body: Array(asset.body.utf8)))
        }
        if segments.first == "blobs" { return .blob(segments[1]) }
        if path == "/api/events" {
            let resume = request.headers["last-event-id"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                ?? HTTPQuery(request.query)["after"].flatMap { Int($0) }
            return .events(after: resume)
        }
        if request.method == "GET" { return .complete(try read(segments)) }
        if request.method == "DELETE" {
            try uploads.abandon(segments[2], reason: "cancelled")
            return .complete(.json(["cancelled": segments[2], "lastEventId": feed.advance()]))
        }
        guard let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw WebRefusal(400, "badJSON", "the body is not a JSON object")
        }
        return .complete(try change(path, json))
    }

    /// The reading routes: status, galleries, a gallery's items.
    private func read(_ segments: [String]) throws -> WebResponse {
        switch segments.count {
        case 2 where segments[1] == "status":
            let replica = node.read { $0.id.description }
            let transfers = node.transferListings.map { listing -> [String: Any] in
                ["transfer": listing.transfer, "source": listing.source, "hash": listing.hash, "done": listing.done,
                 "total": listing.total, "move": listing.move, "state": listing.state, "secondsLeft": listing.secondsLeft]
            }
            let peers = node.peers.map { peer -> [String: Any] in ["name": peer.name ?? NSNull(), "state": peer.state.rawValue] }
            return .json(["api": 1, "node": node.configuration.name, "space": space, "replica": replica, "origin": access.origin,
                          "lastEventId": feed.advance(), "transfers": transfers, "peers": peers])
        case 2:
            let (galleries, last) = try feed.snapshot { replica in
                try replica.galleries.map { ["name": $0, "count": try replica.count(in: $0)] as [String: Any] }
            }
            return .json(["galleries": galleries, "lastEventId": last])
        default:
            let name = segments[2]
            let (listing, last) = try feed.snapshot { [node] replica in
                try ControlCommands.listings(replica, gallery: name, transfers: node.transfers)
            }
            // Encoded from `ItemListing` (as `list --json`), not through `JSONSerialization`: for 10,000
            // items that is ~0.1 s instead of ~0.6 s, most of a large gallery's time to paint.
            return .json(encoding: WebItems.Listing(gallery: name, items: listing.first?.items ?? [], lastEventId: last))
        }
    }
}

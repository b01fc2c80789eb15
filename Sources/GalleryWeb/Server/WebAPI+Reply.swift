import Foundation
import GalleryHTTP

/// How a connection turns a request into bytes to write.
extension WebAPI {
    /// The page's files answered on the loop itself: they are in the binary, nothing blocks. The
    /// style sheet and script asked for with the page's version (`query` `v=VERSION`, as the page
    /// names them) may be kept a year; anything else, the page itself above all, is `no-store`.
    func embeddedAsset(_ route: WebRoute, query: Substring? = nil) -> WebResponse? {
        guard pageOverride == nil else { return nil }
        let path = switch route {
        case .page: "/"
        case .style: "/assets/app.css"
        case .script: "/assets/app.js"
        default: ""
        }
        guard let asset = PageAssets.files.first(where: { $0.path == path }) else { return nil }
        var response = WebResponse(status: .ok, contentType: asset.contentType, body: Array(asset.body.utf8))
        if route != .page, HTTPQuery(query)["v"] == PageAssets.version {
            response.headers.add("Cache-Control", PageAssets.longLivedCaching)
        }
        return response
    }

    /// Answers a request that passed the checks, with its whole body: calls `done` with the reply
    /// once (at once, or for a blob fetched from a peer once it has arrived, from `lane`). Asks the
    /// node and may open a blob: on a web worker (`lane`'s), never a loop. `wake` is the event
    /// stream's wake-up, if the request opens one.
    func reply(
        to request: HTTPRequestHead, route: WebRoute, body: [UInt8], lane: WebWorkers.Lane,
        wake: @escaping @Sendable () -> Void, done: @escaping @Sendable (WebReply) -> Void
    ) {
        switch respond(to: request, route: route, body: body) {
        case .complete(let response):
            done(.response(response.serialized(for: request, keepAlive: request.keepAlive), keepAlive: request.keepAlive))
        case .blob(let hash):
            WebBlobs(node: node).reply(hash, for: request, lane: lane, done: done)
        case .thumbnail(let hash, let size):
            WebThumbnails(node: node).reply(hash, size: size, for: request, lane: lane, done: done)
        case .events(let after):
            var head = HTTPResponseHead(status: .ok, headers: WebResponse.withCommonFields(ServerSentEvent.streamHeaders))
            head.setConnection(for: request, keepAlive: true)
            let opened = feed.open(after: after, wake: wake)
            done(.events(first: head.serialized() + opened.first, cursor: opened.cursor, stream: opened.stream))
        }
    }
}

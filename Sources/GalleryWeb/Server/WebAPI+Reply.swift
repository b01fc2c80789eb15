import Foundation
import GalleryHTTP

/// How a connection turns a request into bytes to write.
extension WebAPI {
    /// The page's files answered on the loop itself: they are in the binary, nothing blocks.
    func embeddedAsset(_ route: WebRoute) -> WebResponse? {
        guard PageAssets.overrideDirectory == nil else { return nil }
        let path = switch route {
        case .page: "/"
        case .style: "/assets/app.css"
        case .script: "/assets/app.js"
        default: ""
        }
        guard let asset = PageAssets.files.first(where: { $0.path == path }) else { return nil }
        return WebResponse(status: .ok, contentType: asset.contentType, body: Array(asset.body.utf8))
    }

    /// The reply to a request that passed the checks, with its whole body. Asks the node and may
    /// open a blob: on a web worker, never a loop. `wake` is the event stream's wake-up, if the
    /// request opens one.
    func reply(to request: HTTPRequestHead, route: WebRoute, body: [UInt8], wake: @escaping @Sendable () -> Void) -> WebReply {
        switch respond(to: request, route: route, body: body) {
        case .complete(let response):
            return .response(response.serialized(for: request, keepAlive: request.keepAlive), keepAlive: request.keepAlive)
        case .blob(let hash):
            return WebBlobs(node: node).reply(hash, for: request)
        case .events(let after):
            var head = HTTPResponseHead(status: .ok, headers: WebResponse.withCommonFields(ServerSentEvent.streamHeaders))
            head.setConnection(for: request, keepAlive: true)
            let opened = feed.open(after: after, wake: wake)
            return .events(first: head.serialized() + opened.first, cursor: opened.cursor, stream: opened.stream)
        }
    }
}

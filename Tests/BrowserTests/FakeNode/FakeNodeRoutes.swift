import Foundation
import GalleryHTTP
import GalleryWeb

/// One request's answer from a `FakeNode`: the security checks of http-api.md section 2 in order,
/// then the route. Pure (no I/O): `FakeNodeServer` writes what it returns.
struct FakeNodeRoutes {
    /// What to write.
    enum Response {
        /// A whole response, and whether the connection stays open.
        case complete([UInt8], keepAlive: Bool)
        /// Start an event stream after this batch ID (nil: at the present).
        case eventStream(after: Int?)
    }

    let node: FakeNode
    let origin: String
    let port: UInt16

    /// The answer to `request` with `body`.
    func response(to request: HTTPRequestHead, body: [UInt8]) -> Response {
        let path = String(request.path)
        let query = HTTPQuery(request.query)
        let host = request.host?.lowercased() ?? ""
        guard host == "127.0.0.1:\(port)" || host == "localhost:\(port)" else {
            return refuse(request, 421, "misdirected", "this node answers to 127.0.0.1:\(port) only")
        }
        if request.method == "GET", path == "/", let token = query["token"] {
            guard token == node.token else { return refuse(request, 401, "unauthorized", "wrong token") }
            var headers = HTTPHeaders([("Location", "/"),
                                       ("Set-Cookie", HTTPCookies.sessionCookie(name: "gallery_session", value: token))])
            PageAssets.securityHeaders.forEach { headers.add($0.0, $0.1) }
            return .complete(HTTPResponseHead.complete(status: HTTPStatus(code: 303, reason: "See Other"), contentType: "text/plain",
                                                       body: [], headers: headers, request: request, keepAlive: request.keepAlive),
                             keepAlive: request.keepAlive)
        }
        guard HTTPCookies(headers: request.headers)["gallery_session"] == node.token else {
            return refuse(request, 401, "unauthorized", "open the link `gallery open` prints")
        }
        let changes = ["POST", "PUT", "DELETE"].contains(request.method)
        if changes {
            guard request.headers["origin"] == origin else { return refuse(request, 403, "origin", "cross-origin request") }
            let type = request.headers["content-type"]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let wanted = request.method == "PUT" ? "application/octet-stream" : "application/json"
            if request.method != "DELETE", type.lowercased() != wanted {
                return refuse(request, 415, "contentType", "send \(wanted)")
            }
        }
        if request.method == "GET", let directory = PageAssets.overrideDirectory, let asset = PageAssets.read(Substring(path), from: directory) {
            return send(request, 200, asset.contentType, asset.body)   // GALLERY_WEB_ASSETS, as the real node
        }
        if request.method == "GET", let asset = PageAssets.files.first(where: { $0.path == path }) {
            return send(request, 200, asset.contentType, Array(asset.body.utf8))
        }
        if request.method == "GET", path.hasPrefix("/blobs/") {
            return blob(request, hash: String(path.dropFirst("/blobs/".count)))
        }
        // The fake's thumbnails are the (small) pictures themselves: the route, its refusals and
        // caching are what the page sees of the real one.
        if request.method == "GET", path.hasPrefix("/thumbnails/") {
            let parts = path.dropFirst("/thumbnails/".count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, ["320", "1280"].contains(parts[1]) else {
                return refuse(request, 404, "notFound", "thumbnails are 320 or 1280 px")
            }
            return blob(request, hash: String(parts[0]))
        }
        if request.method == "GET", path == "/api/events" {
            let resume = request.headers["last-event-id"].flatMap { Int($0) } ?? query["after"].flatMap { Int($0) }
            return .eventStream(after: resume)
        }
        var json: [String: Any] = [:]
        if request.method == "POST" {
            guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                return refuse(request, 400, "badJSON", "the body is not a JSON object")
            }
            json = object
        }
        if changes {
            node.condition.withLock { node.changeRequests.append((request.method, path, json)) }
        }
        do {
            return try route(request, path: path, json: json, body: body)
        } catch {
            return refuse(request, error.status, error.code, error.message)
        }
    }

    /// The API routes.
    private func route(_ request: HTTPRequestHead, path: String, json: [String: Any], body: [UInt8]) throws(FakeNode.Refusal) -> Response {
        let ids = json["items"] as? [String] ?? []
        let index = json["index"] as? Int
        switch (request.method, path) {
        case ("GET", "/api/status"):
            return ok(request, ["api": 1, "node": node.name, "space": node.space, "replica": node.replica,
                                "origin": origin, "lastEventId": node.lastEventId, "transfers": [Any](), "peers": [Any]()])
        case ("GET", "/api/galleries"):
            let list = node.condition.withLock {
                node.galleryNames.map { ["name": $0, "count": node.galleries[$0]?.count ?? 0] as [String: Any] }
            }
            return ok(request, ["galleries": list, "lastEventId": node.lastEventId])
        case ("POST", "/api/galleries"):
            let name = json["name"] as? String ?? ""
            try node.createGallery(name)
            return ok(request, ["gallery": name, "lastEventId": node.lastEventId], status: 201)
        case ("POST", "/api/items/move"):
            try node.move(ids, to: json["to"] as? String ?? "", at: index)
            return ok(request, ["moved": ids, "lastEventId": node.lastEventId])
        case ("POST", "/api/items/delete"):
            try node.delete(ids)
            return ok(request, ["deleted": ids, "lastEventId": node.lastEventId])
        case ("POST", "/api/items/update"):
            let id = json["item"] as? String ?? ""
            try node.update(id, field: json["field"] as? String ?? "", value: json["value"] ?? NSNull())
            return ok(request, ["updated": id, "lastEventId": node.lastEventId])
        case ("POST", "/api/items/add-url"):
            let item = try node.addURL(json["url"] as? String ?? "", to: json["to"] as? String ?? "", at: index,
                                       title: json["title"] as? String, aspectRatio: (json["aspectRatio"] as? NSNumber)?.doubleValue)
            return ok(request, ["item": item.json, "lastEventId": node.lastEventId], status: 201)
        case ("POST", "/api/transfers/cancel"):
            let id = json["transfer"] as? String ?? ""
            try node.cancelTransfer(id)
            return ok(request, ["cancelled": id, "lastEventId": node.lastEventId])
        case ("POST", "/api/uploads"):
            let files = (json["files"] as? [[String: Any]] ?? []).map {
                (name: $0["name"] as? String ?? "", size: $0["size"] as? Int ?? 0, mediaType: $0["mediaType"] as? String ?? "")
            }
            let made = try node.beginUploads(to: json["to"] as? String ?? "", at: index, files: files)
            return ok(request, ["uploads": made.map { ["upload": $0.upload, "item": $0.item] }, "lastEventId": node.lastEventId],
                      status: 201)
        case ("PUT", let upload) where upload.hasPrefix("/api/uploads/"):
            let item = try node.finishUpload(String(upload.dropFirst("/api/uploads/".count)), bytes: body)
            return ok(request, ["item": item.json, "hash": item.hash ?? NSNull(), "lastEventId": node.lastEventId])
        case ("DELETE", let upload) where upload.hasPrefix("/api/uploads/"):
            try node.cancelUpload(String(upload.dropFirst("/api/uploads/".count)))
            return ok(request, ["cancelled": upload, "lastEventId": node.lastEventId])
        case ("POST", "/api/drops"):
            let placements = try node.drop(json["descriptor"] as? [String: Any] ?? [:], to: json["to"] as? String ?? "",
                                           at: index, move: json["operation"] as? String == "move")
            let waiting = placements.contains { !($0["transfer"] is NSNull) }
            return ok(request, ["placements": placements, "lastEventId": node.lastEventId], status: waiting ? 202 : 200)
        default:
            if path.hasPrefix("/api/galleries/"), path.hasSuffix("/items"), request.method == "GET" {
                let name = HTTPQuery.decode(path.dropFirst("/api/galleries/".count).dropLast("/items".count))
                let (items, last) = node.condition.withLock { (node.galleries[name], node.lastBatchID) }
                guard let items else { throw FakeNode.Refusal(status: 404, code: "unknownGallery", message: "no gallery \(name)") }
                // `?limit=N`, as the node answers it (http-api.md): the first N items and the gallery's total.
                if let limit = HTTPQuery(request.query)["limit"].flatMap({ Int($0) }), limit > 0 {
                    return ok(request, ["gallery": name, "items": items.prefix(limit).map(\.json), "lastEventId": last, "total": items.count])
                }
                return ok(request, ["gallery": name, "items": items.map(\.json), "lastEventId": last])
            }
            throw FakeNode.Refusal(status: 404, code: "notFound", message: "no such path")
        }
    }

    /// `GET /blobs/HASH` with ETag, immutable caching, nosniff and one Range.
    private func blob(_ request: HTTPRequestHead, hash: String) -> Response {
        guard hash.count == 64, hash.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            return refuse(request, 400, "badHash", "a hash is 64 lower-case hex digits")
        }
        guard let blob = node.condition.withLock({ node.blobs[hash] }) else {
            return refuse(request, 404, "unknownBlob", "no blob \(hash)")
        }
        var headers = HTTPHeaders(PageAssets.securityHeaders)
        headers.add("ETag", "\"\(hash)\"")
        headers.add("Cache-Control", "private, max-age=31536000, immutable")
        headers.add("Accept-Ranges", "bytes")
        if request.headers["if-none-match"] == "\"\(hash)\"" {
            return .complete(HTTPResponseHead.complete(status: .notModified, contentType: blob.type, body: [], headers: headers,
                                                       request: request, keepAlive: request.keepAlive), keepAlive: request.keepAlive)
        }
        let range = HTTPByteRange(header: request.headers["range"], length: UInt64(blob.bytes.count))
        var bytes = blob.bytes
        if let contentRange = range.contentRange(length: UInt64(blob.bytes.count)) { headers.add("Content-Range", contentRange) }
        switch range {
        case .whole: break
        case .partial(let part): bytes = Array(blob.bytes[Int(part.lowerBound)...Int(part.upperBound)])
        case .unsatisfiable: bytes = []
        }
        return .complete(HTTPResponseHead.complete(status: range.status, contentType: blob.type, body: bytes, headers: headers,
                                                   request: request, keepAlive: request.keepAlive), keepAlive: request.keepAlive)
    }

    private func ok(_ request: HTTPRequestHead, _ object: [String: Any], status: Int = 200) -> Response {
        send(request, status, "application/json", Array(FakeNode.json(object).utf8))
    }

    private func refuse(_ request: HTTPRequestHead, _ status: Int, _ code: String, _ message: String) -> Response {
        send(request, status, "application/json", Array(FakeNode.json(["error": code, "message": message]).utf8))
    }

    private func send(_ request: HTTPRequestHead, _ status: Int, _ type: String, _ bytes: [UInt8]) -> Response {
        var headers = HTTPHeaders(PageAssets.securityHeaders)
        headers.add("Cache-Control", "no-store")
        let reason = [200: "OK", 201: "Created", 202: "Accepted", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
                      404: "Not Found", 409: "Conflict", 415: "Unsupported Media Type", 421: "Misdirected Request"][status] ?? "Status"
        return .complete(HTTPResponseHead.complete(status: HTTPStatus(code: status, reason: reason), contentType: type, body: bytes,
                                                   headers: headers, request: request, keepAlive: request.keepAlive),
                         keepAlive: request.keepAlive)
    }
}

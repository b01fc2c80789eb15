import Foundation
import GalleryHTTP
import GalleryNode

/// Every route of http-api.md, decoded from a request's method and path: one table, no fallback.
/// A path it does not name is 404; a method its path does not take is 405 with `Allow`.
enum WebRoute: Equatable, Sendable {
    /// `GET /`, `GET /assets/app.css`, `GET /assets/app.js`.
    case page, style, script
    /// `GET /api/status`.
    case status
    /// `GET /api/galleries`.
    case galleries
    /// `GET /api/galleries/NAME/items`.
    case items(gallery: String)
    /// `GET /api/trash`.
    case trash
    /// `GET /api/members` (`WebAPI+Members`).
    case members
    /// A `POST` with a JSON body that changes the space (http-api.md section 5).
    case change(Change)
    /// `PUT /api/uploads/ID`.
    case upload(String)
    /// `DELETE /api/uploads/ID`.
    case abandonUpload(String)
    /// `GET /api/events`.
    case events
    /// `GET /blobs/HASH`.
    case blob(String)
    /// `GET /thumbnails/HASH/SIZE`, SIZE one of `ThumbnailSize` (any other is not a path of the API).
    case thumbnail(String, ThumbnailSize)

    /// The changing routes, each a `POST` of a JSON object.
    enum Change: Equatable, Sendable, CaseIterable {
        /// `/api/galleries`.
        case newGallery
        /// `/api/items/move`, `/api/items/delete`, `/api/items/update`, `/api/items/add-url`.
        case move, delete, update, addURL
        /// `/api/transfers/cancel`.
        case cancelTransfer
        /// `/api/uploads`: the files about to be uploaded.
        case announceUploads
        /// `/api/drops`.
        case drop
        /// `/api/items/restore`, `/api/trash/empty`, `/api/galleries/rename`, `/api/galleries/delete`,
        /// `/api/undo` (`WebAPI+Trash`).
        case restore, emptyTrash, renameGallery, deleteGallery, undo
        /// `/api/invite`, `/api/members/revoke` (`WebAPI+Members`).
        case invite, revoke
    }

    /// Why a request has no route.
    enum Problem: Equatable, Error {
        /// No such path.
        case notFound
        /// The path takes only these methods.
        case method(allowed: [String])
    }

    /// The route of `method` on `path` (percent-decoded segment by segment).
    static func decode(method: String, path: Substring) -> Result<WebRoute, Problem> {
        guard let methods = methods(of: segments(path)) else { return .failure(.notFound) }
        guard let route = methods.first(where: { $0.method == method })?.route else {
            return .failure(.method(allowed: methods.map(\.method)))
        }
        return .success(route)
    }

    /// The path's segments, percent-decoded.
    static func segments(_ path: Substring) -> [String] {
        path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { HTTPQuery.decode($0) }
    }

    /// The methods a path takes and the route of each, in the order `Allow` lists them; nil for
    /// a path that is not the API's.
    private static func methods(of segments: [String]) -> [(method: String, route: WebRoute)]? {
        let routes = table.filter { Self.segments(Substring($0.path)) == segments }.map { (method: $0.method, route: $0.route) }
        return routes.isEmpty ? parameterized(segments) : routes
    }

    /// Every path without a parameter, its method and route, in the order `Allow` lists a path's
    /// methods: the one table of the API (each changing route's body type is `Change.bodyType`).
    static let table: [(path: String, method: String, route: WebRoute)] = [
        ("/", "GET", .page), ("/assets/app.css", "GET", .style), ("/assets/app.js", "GET", .script),
        ("/api/status", "GET", .status),
        ("/api/galleries", "GET", .galleries), ("/api/galleries", "POST", .change(.newGallery)),
        ("/api/items/move", "POST", .change(.move)), ("/api/items/delete", "POST", .change(.delete)),
        ("/api/items/update", "POST", .change(.update)), ("/api/items/add-url", "POST", .change(.addURL)),
        ("/api/transfers/cancel", "POST", .change(.cancelTransfer)), ("/api/uploads", "POST", .change(.announceUploads)),
        ("/api/drops", "POST", .change(.drop)), ("/api/events", "GET", .events), ("/api/trash", "GET", .trash),
        ("/api/items/restore", "POST", .change(.restore)), ("/api/trash/empty", "POST", .change(.emptyTrash)),
        ("/api/galleries/rename", "POST", .change(.renameGallery)), ("/api/galleries/delete", "POST", .change(.deleteGallery)),
        ("/api/undo", "POST", .change(.undo)), ("/api/members", "GET", .members), ("/api/invite", "POST", .change(.invite)),
        ("/api/members/revoke", "POST", .change(.revoke)),
    ]

    /// The paths with a parameter segment: a gallery's items, an upload, a blob.
    private static func parameterized(_ segments: [String]) -> [(method: String, route: WebRoute)]? {
        switch segments.count {
        case 4 where segments[0] == "api" && segments[1] == "galleries" && segments[3] == "items":
            [("GET", .items(gallery: segments[2]))]
        case 3 where segments[0] == "api" && segments[1] == "uploads":
            [("PUT", .upload(segments[2])), ("DELETE", .abandonUpload(segments[2]))]
        case 2 where segments[0] == "blobs":
            [("GET", .blob(segments[1]))]
        case 3 where segments[0] == "thumbnails":
            ThumbnailSize(text: segments[2]).map { [("GET", .thumbnail(segments[1], $0))] }
        default:
            nil
        }
    }
}

@testable import GalleryWeb
import Testing

/// The web adapter's route table: every path of http-api.md with its methods, 405 with the
/// methods a path takes, 404 for anything else (never a change's handler).
@Suite("Web routes")
struct WebRouteTests {
    private func decode(_ method: String, _ path: String) -> Result<WebRoute, WebRoute.Problem> {
        WebRoute.decode(method: method, path: Substring(path))
    }

    @Test("each path and method of http-api.md decodes to its route")
    func knownRoutes() {
        let expected: [(String, String, WebRoute)] = [
            ("GET", "/", .page), ("GET", "/assets/app.css", .style), ("GET", "/assets/app.js", .script),
            ("GET", "/api/status", .status), ("GET", "/api/galleries", .galleries), ("POST", "/api/galleries", .change(.newGallery)),
            ("GET", "/api/galleries/My%20trip/items", .items(gallery: "My trip")),
            ("POST", "/api/items/move", .change(.move)), ("POST", "/api/items/delete", .change(.delete)),
            ("POST", "/api/items/update", .change(.update)), ("POST", "/api/items/add-url", .change(.addURL)),
            ("POST", "/api/transfers/cancel", .change(.cancelTransfer)), ("POST", "/api/uploads", .change(.announceUploads)),
            ("PUT", "/api/uploads/u1-7", .upload("u1-7")), ("DELETE", "/api/uploads/u1-7", .abandonUpload("u1-7")),
            ("POST", "/api/drops", .change(.drop)), ("GET", "/api/events", .events), ("GET", "/blobs/abc", .blob("abc")),
            ("GET", "/thumbnails/abc/320", .thumbnail("abc", .small)), ("GET", "/thumbnails/abc/1280", .thumbnail("abc", .large)),
        ]
        for (method, path, route) in expected {
            #expect(decode(method, path) == .success(route), "\(method) \(path)")
        }
    }

    @Test("a known path with another method is 405 with its methods; an unknown path is 404, not a drop")
    func refusals() {
        #expect(decode("DELETE", "/api/galleries") == .failure(.method(allowed: ["GET", "POST"])))
        #expect(decode("GET", "/api/uploads/u1") == .failure(.method(allowed: ["PUT", "DELETE"])))
        #expect(decode("GET", "/api/items/move") == .failure(.method(allowed: ["POST"])))
        for path in ["/api/nothing", "/api/items/explode", "/api/galleries/x/other", "/blobs", "/blobs/a/b", "/index.html", "/api/drops/x",
                     "/thumbnails/abc", "/thumbnails/abc/640", "/thumbnails/abc/0320", "/thumbnails/abc/+320", "/thumbnails/abc/320/x"] {
            #expect(decode("POST", path) == .failure(.notFound), "\(path)")
        }
    }
}

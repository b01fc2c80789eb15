import Foundation
import GalleryCrypto

/// The web page a node serves (http-api.md section 3): one HTML file, one style sheet, one script,
/// vanilla, with no framework, build step or CDN. They are real files beside this one
/// (`index.html`, `app.css`, and the script in parts: `core.js` with state, requests and the
/// galleries; `grid.js` with tiles, placeholders, zoom and FLIP; `live.js` with the event stream,
/// selection and the keyboard; `drag.js` with drag and drop and uploads; `undo.js` and `trash.js`;
/// `view.js` with search and sort; `selection.js` with the rubber band; `offline.js` with the
/// offline banner; `access.js` with the sidebar's keys, Add photos and upload shapes; `touch.js`
/// with the phone's drawer and touch; `phone.js` with the drawer's focus trap, touch drops into it and
/// the "N selected" bar; `viewer.js` with the full-size viewer; `qr.js`, the QR encoder, and
/// `members.js` with Invite and Members: `scriptParts`), embedded
/// in the binary at build time (SwiftPM's `.embedInCode`, which generates `PackageResources`), so that
/// a built `gallery` needs no file beside it. The script parts are served joined, as `app.js`.
///
/// For development, `GALLERY_WEB_ASSETS=DIR` (DIR holding those files, such as
/// `Sources/GalleryWeb/Page`) serves them from disk instead, read again on every request: edit,
/// reload, no rebuild.
///
/// Everything the page shows from the node, titles and file names above all, is set with
/// `textContent`, never parsed as HTML, and the Content-Security-Policy allows no inline script or
/// style.
package enum PageAssets {
    /// The environment variable naming a directory to serve the page's files from.
    package static let overrideVariable = "GALLERY_WEB_ASSETS"

    /// `GET /`: the page, its style sheet and script named with the page's `version`
    /// (`/assets/app.js?v=VERSION`).
    package static let html = String(decoding: PackageResources.index_html, as: UTF8.self)
        .replacingOccurrences(of: "\"/assets/app.css\"", with: "\"/assets/app.css?v=\(version)\"")
        .replacingOccurrences(of: "\"/assets/app.js\"", with: "\"/assets/app.js?v=\(version)\"")

    /// The embedded style sheet's and script's version: the first 16 hex digits of the SHA-256 of
    /// both. Asked for with it (`?v=VERSION`, as the page names them), they are kept by the browser
    /// for a year (`longLivedCaching`): a bookmarked page then reads them, compiled, from its cache.
    /// A node with other files has another version, so a browser never runs an old script.
    package static let version = String(SHA256.hex(SHA256.hash(Array(css.utf8) + Array(javascript.utf8))).prefix(16))

    /// The `Cache-Control` of the style sheet and script asked for with the page's `version`.
    package static let longLivedCaching = "private, max-age=31536000, immutable"
    /// `GET /assets/app.css`.
    package static let css = String(decoding: PackageResources.app_css, as: UTF8.self)
    /// `GET /assets/app.js`: the script's parts, joined.
    package static let javascript = [PackageResources.core_js, PackageResources.grid_js, PackageResources.live_js,
                                     PackageResources.drag_js, PackageResources.undo_js, PackageResources.trash_js,
                                     PackageResources.view_js, PackageResources.selection_js, PackageResources.offline_js,
                                     PackageResources.access_js, PackageResources.touch_js, PackageResources.phone_js, PackageResources.viewer_js,
                                     PackageResources.qr_js, PackageResources.members_js,
                                     ].map { String(decoding: $0, as: UTF8.self) }.joined()

    /// The script's parts, in the order they are joined (`undo.js`: Ctrl+Z and the Undo toast;
    /// `trash.js`: the Trash as a place, gallery rename and delete, titles edited in place; the
    /// phone, views, selection, offline and keyboard parts after them; `viewer.js`: the full-size viewer;
    /// `qr.js` and `members.js`: Invite and Members).
    package static let scriptParts = ["core.js", "grid.js", "live.js", "drag.js", "undo.js", "trash.js", "view.js",
                                      "selection.js", "offline.js", "access.js", "touch.js", "phone.js", "viewer.js",
                                      "qr.js", "members.js"]

    /// The path of each asset, its `Content-Type` and its embedded body.
    package static let files: [(path: String, contentType: String, body: String)] = [
        ("/", "text/html; charset=utf-8", html),
        ("/assets/app.css", "text/css; charset=utf-8", css),
        ("/assets/app.js", "text/javascript; charset=utf-8", javascript),
    ]

    /// The directory of `GALLERY_WEB_ASSETS`, when set.
    package static let overrideDirectory: URL? = ProcessInfo.processInfo.environment[overrideVariable]
        .flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }

    /// The asset at `path` read from `directory` (the development override): its type and bytes,
    /// nil when `path` names no asset or a file cannot be read. Reads the disk: not on an event loop.
    package static func read(_ path: Substring, from directory: URL) -> (contentType: String, body: [UInt8])? {
        guard let asset = files.first(where: { $0.path == path }) else { return nil }
        let names = switch asset.path {
        case "/": ["index.html"]
        case "/assets/app.css": ["app.css"]
        default: scriptParts
        }
        var body: [UInt8] = []
        for name in names {
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else { return nil }
            body += data
        }
        return (asset.contentType, body)
    }

    /// The `Content-Security-Policy` every response carries (http-api.md section 2): scripts and styles
    /// only from the node's own files, pictures also from http(s) URLs (items added by URL) and from
    /// `blob:` URLs the page made (the viewer's original, read with progress), requests only to the node.
    package static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: http: https:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The fields every response of the web adapter carries: the CSP, `nosniff`, no referrer.
    package static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]
}

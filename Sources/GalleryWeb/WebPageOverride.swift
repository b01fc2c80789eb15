import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The development override of the page's files (`GALLERY_WEB_ASSETS=DIR`, `PageAssets`): each
/// request for `/`, `/assets/app.css` or `/assets/app.js` reads the files from DIR again (edit,
/// reload, no rebuild). Only the page's own file names are ever read (no path of a request is
/// joined to DIR: `..` and its encodings are not routes), and a file that resolves outside DIR (a
/// symbolic link out of it) is refused. A DIR that is missing or not a directory refuses the
/// server's start with a line that says so.
struct WebPageOverride: Sendable {
    /// DIR with every symbolic link resolved.
    let directory: String

    /// Why the override cannot be used.
    enum Problem: Error, LocalizedError, Equatable {
        /// DIR does not exist or is not a directory: the path and why.
        case notADirectory(String, reason: String)

        var errorDescription: String? {
            switch self {
            case .notADirectory(let path, let reason):
                "\(PageAssets.overrideVariable)=\(path): \(reason); set it to the directory of the page's files (Sources/GalleryWeb/Page) or unset it"
            }
        }
    }

    /// The override of `path`, checked now.
    ///
    /// - Throws: `Problem.notADirectory` for a missing path or one that is not a directory.
    init(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Problem.notADirectory(path, reason: "no such directory")
        }
        guard isDirectory.boolValue, let resolved = Self.realPath(path) else {
            throw Problem.notADirectory(path, reason: "not a directory")
        }
        directory = resolved
    }

    /// The override the environment names (`GALLERY_WEB_ASSETS`, empty: none), checked now.
    static func fromEnvironment() throws -> WebPageOverride? {
        try PageAssets.overrideDirectory.map { try WebPageOverride($0.path) }
    }

    /// The file names of a route of the page, joined in this order; nil for another route.
    static func files(of route: WebRoute) -> [String]? {
        switch route {
        case .page: ["index.html"]
        case .style: ["app.css"]
        case .script: PageAssets.scriptParts
        default: nil
        }
    }

    /// The route's files read from DIR now: 403 `outsideAssets` for one that resolves outside DIR,
    /// 500 `assets` for one that cannot be read. Reads the disk: on a web worker, not a loop.
    func response(for route: WebRoute) throws -> WebResponse {
        guard let names = Self.files(of: route), let asset = PageAssets.files.first(where: { $0.path == Self.path(of: route) }) else {
            throw WebRefusal(404, "notFound", "no such path")
        }
        var body: [UInt8] = []
        for name in names {
            let path = directory + "/" + name
            guard let resolved = Self.realPath(path), let data = FileManager.default.contents(atPath: resolved) else {
                throw WebRefusal(500, "assets", "cannot read \(name) of the page from \(directory) (\(PageAssets.overrideVariable))")
            }
            guard resolved.hasPrefix(directory + "/") else {
                throw WebRefusal(403, "outsideAssets", "\(name) leads outside \(directory) (\(PageAssets.overrideVariable)): not served")
            }
            body += data
        }
        return WebResponse(status: .ok, contentType: asset.contentType, body: body)
    }

    /// The request path of a page route.
    private static func path(of route: WebRoute) -> String {
        switch route {
        case .style: "/assets/app.css"
        case .script: "/assets/app.js"
        default: "/"
        }
    }

    /// `path` with every symbolic link resolved, nil when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

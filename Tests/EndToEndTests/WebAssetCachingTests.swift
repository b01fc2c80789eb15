import Foundation
import Testing

/// The page's style sheet and script as a real `gallery serve --http` serves them: named in the page
/// with the version of their contents (`?v=VERSION`), and kept a year by the browser when asked for
/// with it; the page itself, and the files asked for without the version, are never stored.
@Suite("web adapter: the page's files, versioned and kept", .serialized)
struct WebAssetCachingTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-assets-\(UUID().uuidString)")

    @Test("the page names app.css and app.js with one version; asked with it they are immutable for a year; the page and unversioned files are no-store")
    func versionedAssets() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("assets", base: base)
        defer { node.stop() }
        let page = try node.get("/")
        #expect(page.status == 200 && page.headers["cache-control"] == "no-store")
        let versions = ["css", "js"].compactMap { kind -> String? in
            guard let range = page.text.range(of: #"/assets/app\.\#(kind)\?v=[0-9a-f]{16}""#, options: .regularExpression) else { return nil }
            return String(page.text[range].dropFirst("/assets/app.\(kind)?v=".count).dropLast())
        }
        try #require(versions.count == 2, "\(page.text.prefix(600))")
        #expect(versions[0] == versions[1])
        let version = versions[0]

        for (path, type) in [("/assets/app.js", "text/javascript"), ("/assets/app.css", "text/css")] {
            let plain = try node.get(path)
            #expect(plain.status == 200 && plain.headers["cache-control"] == "no-store", "\(path): \(plain.headers)")
            let kept = try node.get("\(path)?v=\(version)")
            #expect(kept.status == 200 && kept.headers["content-type"]?.hasPrefix(type) == true)
            #expect(kept.headers["cache-control"] == "private, max-age=31536000, immutable", "\(path): \(kept.headers)")
            #expect(kept.body == plain.body)
            #expect(kept.headers["content-security-policy"] != nil && kept.headers["x-content-type-options"] == "nosniff")
            let other = try node.get("\(path)?v=0000000000000000")
            #expect(other.headers["cache-control"] == "no-store", "another version is not kept: \(other.headers)")
        }
        // Signed out, nothing is served, versioned or not.
        let client = try node.client()
        _ = client.send("GET", "/assets/app.js?v=\(version)", host: node.host, headers: [])
        #expect(try #require(client.response()).status == 401)
    }
}

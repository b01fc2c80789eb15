import Foundation
@testable import GalleryWeb
import Testing

extension NodeSuites {
    /// `GALLERY_WEB_ASSETS=DIR` (`WebPageOverride`), over real HTTP on 127.0.0.1 against a real
    /// node: the page's files come from DIR, read again on every request; nothing outside DIR is
    /// ever served (`..` in any encoding, symbolic links out of DIR); a DIR that is not there
    /// stops the server from starting, with a line that says why.
    @Suite("Web page files from disk")
    struct WebPageOverrideTests {
        /// A directory holding every file of the page, each with a marker naming it.
        final class PageDirectory {
            let root: URL
            let page: URL
            let outside: URL

            init() throws {
                root = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-page-\(UUID().uuidString)")
                page = root.appendingPathComponent("page")
                outside = root.appendingPathComponent("secret.txt")
                try FileManager.default.createDirectory(at: page, withIntermediateDirectories: true)
                for name in ["index.html", "app.css"] + PageAssets.scriptParts { try write(name, "/* \(name) v1 */\n") }
                try Data("TOP-SECRET-OUTSIDE\n".utf8).write(to: outside)
                try Data("TOP-SECRET-INSIDE-BUT-NOT-A-PAGE-FILE\n".utf8).write(to: page.appendingPathComponent("notes.txt"))
            }

            deinit { try? FileManager.default.removeItem(at: root) }

            func write(_ name: String, _ text: String) throws {
                try Data(text.utf8).write(to: page.appendingPathComponent(name))
            }
        }

        @Test("the page, style sheet and script are read from DIR on every request: an edit is served at once")
        func servedFromDisk() throws {
            let directory = try PageDirectory()
            let fixture = try WebBodyFixture(assets: directory.page.path)
            let page = try fixture.get("/")
            #expect(page.status == 200 && page.text == "/* index.html v1 */\n" && page.head.contains("text/html"), "\(page.head)")
            let script = try fixture.get("/assets/app.js")
            #expect(script.status == 200 && script.text == PageAssets.scriptParts.map { "/* \($0) v1 */\n" }.joined())
            #expect(try fixture.get("/assets/app.css").text == "/* app.css v1 */\n")

            try directory.write("app.css", "/* app.css v2: edited */\n")
            try directory.write(PageAssets.scriptParts[1], "/* edited part */\n")
            let style = try fixture.get("/assets/app.css")
            #expect(style.status == 200 && style.text == "/* app.css v2: edited */\n" && style.head.contains("text/css"))
            #expect(try fixture.get("/assets/app.js").text.contains("/* edited part */\n"))
            // A symbolic link that stays inside DIR is served.
            try FileManager.default.removeItem(at: directory.page.appendingPathComponent("index.html"))
            try directory.write("real-index.html", "/* linked inside */\n")
            try FileManager.default.createSymbolicLink(atPath: directory.page.appendingPathComponent("index.html").path,
                                                       withDestinationPath: "real-index.html")
            #expect(try fixture.get("/").text == "/* linked inside */\n")
        }

        @Test("no path reaches a file outside the page's own: .. and its encodings, other names, links out of DIR")
        func traversalRefused() throws {
            let directory = try PageDirectory()
            let fixture = try WebBodyFixture(assets: directory.page.path)
            let paths = [
                "/../secret.txt", "/assets/../../secret.txt", "/assets/%2e%2e/%2e%2e/secret.txt", "/assets/%2E%2E%2F%2E%2E%2Fsecret.txt",
                "/%2e%2e/secret.txt", "/assets/..%2f..%2fsecret.txt", "/assets/%252e%252e/secret.txt", "/assets/..%5c..%5csecret.txt",
                "/assets/app.css/../../secret.txt", "/notes.txt", "/assets/notes.txt", "/assets/..%00/notes.txt", "//secret.txt",
                "/assets/%2e%2e/notes.txt", "/index.html", "/assets/index.html", "/assets/core.js", "/assets/app.js/..",
            ]
            for path in paths {
                let answer = try fixture.get(path)
                #expect(answer.status != 200 && answer.status < 500, "\(path): \(answer.status)")
                #expect(!answer.text.contains("TOP-SECRET"), "\(path): \(answer.text.prefix(200))")
            }
            // app.css replaced by a link to a file outside DIR: refused, the file's bytes never sent.
            let css = directory.page.appendingPathComponent("app.css")
            try FileManager.default.removeItem(at: css)
            try FileManager.default.createSymbolicLink(atPath: css.path, withDestinationPath: directory.outside.path)
            let linked = try fixture.get("/assets/app.css")
            #expect(linked.status == 403 && linked.json["error"] as? String == "outsideAssets", "\(linked.status) \(linked.text)")
            #expect(!linked.text.contains("TOP-SECRET"))
            // A relative link out (`../secret.txt`) and a script part linked out: refused too.
            try FileManager.default.removeItem(at: css)
            try FileManager.default.createSymbolicLink(atPath: css.path, withDestinationPath: "../secret.txt")
            #expect(try fixture.get("/assets/app.css").status == 403)
            let part = directory.page.appendingPathComponent(PageAssets.scriptParts[0])
            try FileManager.default.removeItem(at: part)
            try FileManager.default.createSymbolicLink(atPath: part.path, withDestinationPath: directory.outside.path)
            let script = try fixture.get("/assets/app.js")
            #expect(script.status == 403 && !script.text.contains("TOP-SECRET"), "\(script.status)")
            // The node still serves the rest.
            #expect(try fixture.get("/api/status").status == 200)
        }

        @Test("a missing DIR, or a file in its place, stops the server from starting with a line naming GALLERY_WEB_ASSETS")
        func missingDirectory() throws {
            let directory = try PageDirectory()
            let missing = directory.root.appendingPathComponent("no-such-dir").path
            #expect(throws: WebPageOverride.Problem.notADirectory(missing, reason: "no such directory")) {
                _ = try WebBodyFixture(assets: missing)
            }
            let file = directory.outside.path
            do {
                _ = try WebBodyFixture(assets: file)
                Issue.record("a regular file was taken as the page's directory")
            } catch {
                let line = error.localizedDescription
                #expect(line.contains("GALLERY_WEB_ASSETS=\(file)") && line.contains("not a directory"), "\(line)")
            }
        }
    }
}

import Foundation
import GalleryTestSupport
import Testing

/// The command line and the web page are two adapters of one application layer: against one real
/// `gallery serve --http`, they accept and refuse the same gallery names, and a refused use case
/// gets the same message on both (the web adds its status and code).
@Suite("CLI and web share one rule per field and one message per error", .serialized)
struct SharedRulesTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-rules-\(UUID().uuidString)")

    @Test("a gallery name of 255 bytes is accepted by both, 256 bytes refused by both with the same reason")
    func galleryNameLimit() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("rules", base: base)
        defer { node.stop() }
        // 255 bytes of UTF-8 in 128 characters: a byte limit, not a character one.
        let web255 = String(repeating: "é", count: 127) + "w"
        let cli255 = String(repeating: "é", count: 127) + "c"
        let created = try node.post("/api/galleries", ["name": web255])
        #expect(created.status == 201, "\(created.text)")
        let made = try node.gallery("new-gallery", cli255)
        #expect(made.status == 0, "\(made.stderr)")
        let listed = try node.gallery("galleries").stdout
        #expect(listed.contains(web255) && listed.contains(cli255), "\(listed)")

        let refusedWeb = try node.post("/api/galleries", ["name": web255 + "x"])
        #expect(refusedWeb.status == 400 && refusedWeb.json["error"] as? String == "badName", "\(refusedWeb.text)")
        let refusedCLI = try node.gallery("new-gallery", cli255 + "x")
        #expect(refusedCLI.status == 64, "\(refusedCLI.stderr)")
        let reason = try #require(refusedWeb.json["message"] as? String)
        #expect(reason.contains("256 bytes") && refusedCLI.stderr.hasPrefix("gallery: \(reason)\n"), "\(reason) | \(refusedCLI.stderr)")

        // A rename to 256 bytes: refused by both; to 255: accepted.
        let renamed = try node.post("/api/galleries/rename", ["gallery": web255, "name": web255 + "x"])
        #expect(renamed.status == 400 && renamed.json["error"] as? String == "badName", "\(renamed.text)")
        let renamedCLI = try node.gallery("rename-gallery", cli255, cli255 + "x")
        #expect(renamedCLI.status == 64 && renamedCLI.stderr.contains("256 bytes"), "\(renamedCLI.stderr)")
        #expect(try node.gallery("galleries").stdout == listed)
    }

    @Test("a URL of 8,192 bytes and a title of 1,024 bytes pass both adapters; one byte more is refused by both")
    func urlAndTitleLimits() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("fields", base: base)
        defer { node.stop() }
        let prefix = "https://example.org/"
        let url = prefix + String(repeating: "a", count: 8_192 - prefix.utf8.count)
        let webAdded = try node.post("/api/items/add-url", ["url": url, "to": "fields"])
        #expect(webAdded.status == 201, "\(webAdded.text)")
        let cliAdded = try node.gallery("add", url)
        #expect(cliAdded.status == 0, "\(cliAdded.stderr)")
        let webLong = try node.post("/api/items/add-url", ["url": url + "a", "to": "fields"])
        #expect(webLong.status == 400 && webLong.json["error"] as? String == "badField", "\(webLong.text)")
        let cliLong = try node.gallery("add", url + "a")
        let reason = try #require(webLong.json["message"] as? String)
        #expect(cliLong.status == 64 && cliLong.stderr.hasPrefix("gallery: \(reason)\n"), "\(cliLong.stderr) vs \(reason)")

        let id = try #require(node.ids("fields").first)
        let title = String(repeating: "t", count: 1_024)
        #expect(try node.post("/api/items/update", ["item": id, "field": "title", "value": title]).status == 200)
        #expect(try node.gallery("update", id, "--title", title).status == 0)
        let webTitle = try node.post("/api/items/update", ["item": id, "field": "title", "value": title + "t"])
        #expect(webTitle.status == 400 && webTitle.json["error"] as? String == "badField", "\(webTitle.text)")
        let cliTitle = try node.gallery("update", id, "--title", title + "t")
        let titleReason = try #require(webTitle.json["message"] as? String)
        #expect(cliTitle.status == 64 && cliTitle.stderr.hasPrefix("gallery: \(titleReason)\n"), "\(cliTitle.stderr)")
        #expect(try node.ids("fields").count == 2)
    }

    @Test("a refused use case: the web's status and code for its case, and the CLI's message is the web's")
    func sameRefusal() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("refusals", base: base)
        defer { node.stop() }
        #expect(try node.gallery("new-gallery", "trip").status == 0)
        let added = try node.gallery("add", "https://example.org/a.png", "--to", "trip")
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(added.status == 0 && !id.isEmpty, "\(added.stderr)")

        // (web request, CLI arguments, status, code): each the same case of ActionError.
        let cases: [(String, [String: Any], [String], Int, String)] = [
            ("/api/galleries", ["name": "trip"], ["new-gallery", "trip"], 409, "galleryExists"),
            ("/api/items/move", ["items": [id], "to": "nowhere", "index": 0], ["move", id, "--at", "0", "--to", "nowhere"], 404, "unknownGallery"),
            ("/api/galleries/rename", ["gallery": "trip", "name": "trip"], ["rename-gallery", "trip", "trip"], 409, "galleryExists"),
            ("/api/galleries/delete", ["gallery": "nowhere"], ["delete-gallery", "nowhere"], 404, "unknownGallery"),
        ]
        for (path, body, arguments, status, code) in cases {
            let web = try node.post(path, body)
            let cli = try node.gallery(arguments)
            #expect(web.status == status && web.json["error"] as? String == code, "\(path): \(web.text)")
            let message = try #require(web.json["message"] as? String)
            #expect(cli.status == 1 && cli.stderr == "gallery: \(message)\n", "\(arguments): \(cli.stderr) vs \(message)")
        }
        #expect(try node.ids("trip") == [id])
    }
}

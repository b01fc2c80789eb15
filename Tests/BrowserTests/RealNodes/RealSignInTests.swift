import Foundation
import GalleryCrypto
import GalleryTestSupport
import Testing

/// A real node's page in Chromium: the sign-in page a browser without a session sees, a sign-in
/// that lasts 30 days (the browser's own cookie store says so), and photos added with the picker
/// keeping their shape from the placeholder on.
@Suite("Gallery page on a real node: sign-in and Add photos", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct RealSignInTests {
    @Test("Without a session / shows how to get a link; the link signs in for 30 days, HttpOnly; the bookmark opens the page after")
    func signIn() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-signin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try RealNode("alice", base: base, arguments: [])
        defer { node.stop() }
        let browser = try Browser.launch()
        defer { browser.close() }
        let bookmark = "http://127.0.0.1:\(node.webPort)/"
        let page = try browser.newPage(url: bookmark)
        try page.emulateColorScheme(dark: false)
        #expect(try page.evaluateString("document.querySelector('h1').textContent") == "Sign in to this gallery")
        #expect(try page.evaluateString("document.body.textContent")?.contains("gallery open") == true)
        #expect(try page.evaluate("getComputedStyle(document.querySelector('main')).borderRadius") as? String == "14px",
                "its style sheet applies under its own CSP")
        try PageLooks.keep(page, as: "sign-in")

        try page.navigate(to: node.link)
        try page.waitFor("window.__state && __state.ready && __state.connected")
        let cookies = try page.send("Network.getCookies", ["urls": [bookmark]])["cookies"] as? [[String: Any]] ?? []
        let session = try #require(cookies.first { ($0["name"] as? String) == "gallery_session_\(node.webPort)" })
        #expect(session["httpOnly"] as? Bool == true)
        #expect(session["sameSite"] as? String == "Strict")
        #expect(session["session"] as? Bool == false, "a persistent cookie, not one that dies with the browser")
        let expires = session["expires"] as? Double ?? 0
        #expect(abs(expires - Date().timeIntervalSince1970 - 30 * 86_400) < 60, "30 days: \(expires)")
        #expect(try page.evaluateString("document.cookie") == "")
        try page.navigate(to: bookmark)
        try page.waitFor("window.__state && __state.ready && __state.connected")

        // The session ends while the page is open (its cookie now holds a session this node signed that
        // ended an hour ago): a change is refused with the signed-out banner, and the bookmark then
        // shows the small page saying when it ended and how to get a new link, not JSON.
        let token = try #require(URLComponents(string: node.link)?.queryItems?.first { $0.name == "token" }?.value)
        let ended = Int(Date().timeIntervalSince1970) - 3_600
        let mac = SHA256.hex(HMACSHA256.authenticationCode(for: Array("gallery-session-v1:\(ended)".utf8), key: Array(token.utf8)))
        try page.send("Network.setCookie", ["name": "gallery_session_\(node.webPort)", "value": "s1.\(ended).\(mac)", "url": bookmark,
                                            "httpOnly": true, "sameSite": "Strict", "expires": Date().timeIntervalSince1970 + 86_400])
        try page.click("#new-gallery-name")
        try page.insertText("after")
        try page.press(.enter)
        try page.waitFor("!document.getElementById('offline').hidden && document.getElementById('offline-text').textContent.includes('gallery open')")
        #expect(try page.evaluate("document.getElementById('offline-retry').hidden") as? Bool == true, "no retry: a new link is needed")
        #expect(try !node.gallery("galleries").stdout.contains("after"), "nothing changed on the node")
        try page.navigate(to: bookmark)
        #expect(try page.evaluateString("document.querySelector('h1').textContent") == "Sign in to this gallery")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let day = formatter.string(from: Date(timeIntervalSince1970: Double(ended)))
        let text = try page.evaluateString("document.body.textContent") ?? ""
        #expect(text.contains("Your session ended on \(day)") && text.contains("gallery open"), "\(text)")
        try PageLooks.keep(page, as: "sign-in-expired")
    }

    @Test("Add photos on a real node: the placeholder has the picture's shape at once, and keeps it when the node commits it")
    func addPhotosKeepShape() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-picker-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try RealNode("alice", base: base, arguments: [])
        defer { node.stop() }
        let browser = try Browser.launch()
        defer { browser.close() }
        let page = try browser.newPage(url: node.link)
        try page.waitFor("window.__state && __state.ready && __state.connected")
        // Every new tile's shape, from the first frame it exists in.
        try page.evaluate("""
            window.__shapes = {}; new MutationObserver(() => { for (const t of document.querySelectorAll('#grid .tile')) {
              const r = t.querySelector('.frame').getBoundingClientRect(); (__shapes[t.title] ||= []).push(r.width / r.height); } })
              .observe(document.getElementById('grid'), { childList: true, subtree: true, attributes: true }); true
            """)
        let images = GalleryProcess.repositoryRoot.appendingPathComponent("demo/images")
        try page.pickFiles(["sunset.png", "wizard.png"].map { images.appendingPathComponent($0).path }, in: "#picker")
        try page.waitFor("document.querySelectorAll('#grid .tile:not(.placeholder)').length === 2", timeout: .seconds(15))
        let items = try node.items("alice")
        #expect(items.map { $0["title"] as? String } == ["sunset.png", "wizard.png"])
        for (title, ratio) in [("sunset.png", 80.0 / 48), ("wizard.png", 48.0 / 64)] {
            let shapes = try page.evaluate("__shapes[\(BrowserPage.jsString(title))]") as? [Double] ?? []
            #expect(!shapes.isEmpty && shapes.allSatisfy { abs($0 - ratio) < 0.03 }, "\(title): every frame \(ratio), saw \(shapes)")
        }
    }
}

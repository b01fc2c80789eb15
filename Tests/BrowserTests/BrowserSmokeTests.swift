import Foundation
import GalleryHTTP
import GalleryTestSupport
import Testing

/// The HTTP codec and the Chromium driver together, for real: a test server built on GalleryHTTP serves
/// a page (script and style as separate files under a strict CSP), and headless Chromium drags tiles
/// within the page and across windows, drops a file that the page uploads, and receives an event stream.
///
/// Skipped with a loud message when Chromium is missing, except under CI=true, where they fail.
@Suite("Browser smoke", .serialized, .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct BrowserSmokeTests {
    @Test("An intercepted drag reorders two tiles, a click and Alt+Arrow move one, and the CSP blocks inline script")
    func reorderWithinPage() throws {
        try BrowserScenario.run("reorder") { scenario in
            let page = try scenario.open(name: "WA")
            #expect(try page.evaluateString("tileOrder()") == "ABCDE")

            let data = try page.drag(".tile[data-id=A]", to: ".tile[data-id=C]")
            #expect(data.item("text/plain") == "A")
            #expect(data.item("application/x-gallery-item") == #"{"id":"A","from":"WA"}"#)
            #expect(data.operations == 17)  // copy | move, from effectAllowed = 'copyMove'
            try page.waitFor("tileOrder() === 'BCADE'")
            try page.waitFor("__state.log.includes('dragend move')")

            try page.click(".tile[data-id=D]")
            #expect(try page.evaluateString("__state.selected") == "D")
            try page.press(.arrowLeft, modifiers: .alt)
            try page.waitFor("tileOrder() === 'BCDAE'")
            try page.press(.arrowRight, modifiers: .alt)
            try page.press(.arrowRight, modifiers: .alt)
            try page.waitFor("tileOrder() === 'BCAED'")

            #expect(try page.evaluate("window.__inlineRan") == nil, "the CSP must block the inline canary script")
            #expect(try page.evaluate("__state.violations.filter(d => d !== 'script-src-elem').length") as? Int == 0)
        }
    }

    @Test("A drag from one window to another carries the custom MIME type and inserts a foreign tile")
    func dragAcrossWindows() throws {
        try BrowserScenario.run("cross-window") { scenario in
            let source = try scenario.open(name: "WA", newWindow: true)
            let target = try scenario.open(name: "WB", newWindow: true)
            try source.drag(".tile[data-id=C]", to: ".tile[data-id=B]", in: target)
            try target.waitFor("tileOrder() === 'AWA:CBCDE'")
            let log = try target.evaluate("__state.log") as? [String] ?? []
            #expect(log.contains("drop WA:C types=text/plain,application/x-gallery-item"))
            #expect(try source.evaluateString("tileOrder()") == "ABCDE", "a copy leaves the source as it was")
            try source.waitFor("__state.log.includes('dragend none')")
        }
    }

    @Test("A file dropped from disk is uploaded by the page with fetch, and the server gets every byte")
    func fileDropUpload() throws {
        try BrowserScenario.run("file-drop") { scenario in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("browser-drop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            var generator = SystemRandomNumberGenerator()
            let bytes = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let file = folder.appendingPathComponent("photo one.png")
            try Data(bytes).write(to: file)

            let page = try scenario.open(name: "WA")
            try page.dropFiles([file.path], on: "#dropzone")
            try page.waitFor("__state.uploads.length === 1")
            let uploads = scenario.server.uploads
            try #require(uploads.count == 1)
            #expect(uploads[0].name == "photo one.png")
            #expect(uploads[0].bytes == bytes)
            let reply = try page.evaluate("__state.uploads[0]") as? [String: Any]
            #expect(reply?["status"] as? Int == 201)
            #expect(reply?["type"] as? String == "image/png")
            #expect((reply?["reply"] as? [String: Any])?["size"] as? Int == bytes.count)
            #expect(try page.evaluateString("document.getElementById('uploads').textContent")
                    == "photo one.png: 300000 bytes stored")
        }
    }

    @Test("An event pushed on the SSE stream changes the DOM, multi-line data and id intact")
    func serverSentEvents() throws {
        try BrowserScenario.run("sse") { scenario in
            let page = try scenario.open(name: "WA")
            try page.waitFor("__state.sseOpen")
            try #require(scenario.server.waitForEventStreams(1, timeout: 5))
            #expect(scenario.server.push(ServerSentEvent(id: "7", event: "title", data: "first line\nsecond <b>line</b>")) == 1)
            try page.waitFor("__state.events.length === 1")
            let event = try page.evaluate("__state.events[0]") as? [String: Any]
            #expect(event?["id"] as? String == "7")
            #expect(event?["data"] as? String == "first line\nsecond <b>line</b>")
            #expect(try page.evaluateString("document.getElementById('banner').textContent") == "first line\nsecond <b>line</b>")
            #expect(try page.evaluate("document.querySelectorAll('#banner b').length") as? Int == 0, "data is text, never HTML")
        }
    }
}

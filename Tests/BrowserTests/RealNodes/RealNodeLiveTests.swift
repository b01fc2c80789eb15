import Foundation
import GalleryCrypto
import GalleryTestSupport
import Testing

/// One real node's page (`gallery serve --http`) in headless Chromium: files dropped from disk, the
/// trash, a hostile title, a change made on a third node, and the node restarting under the page.
@Suite("Gallery pages on real nodes: files, trash, live changes, restarts", .serialized,
       .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct RealNodeLiveTests {
    /// Lower-case hex SHA-256 of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(bytes).map { String(format: "%02x", $0) }.joined()
    }

    @Test("Files from disk: a PNG is uploaded at the drop index with its hash, a .txt is refused by name; trash deletes; a hostile title is text")
    func filesTrashAndTitles() throws {
        try RealSpace.run("real-files-trash") { space in
            let alice = try space.node("alice")
            try alice.gallery(["add"] + (0..<3).map { try space.file("a\($0).png", RealPictures.png(palette: $0)) })
            let ids = try alice.ids("alice")
            let page = try space.open(alice, newWindow: false)

            // A PNG and a text file dropped together on the left half of tile 1.
            let bytes = RealPictures.png(width: 240, height: 160, palette: 3, bytes: 300_000)
            let png = try space.file("sunset <b>.png", bytes)
            let text = try space.file("notes.txt", Array("not a picture".utf8))
            try page.drop(.files([png, text]), at: page.point(in: BrowserPage.tile(ids[1]), fx: 0.2))
            #expect(try alice.waitUntil { try $0.items("alice").count == 4 && $0.items("alice")[1]["state"] as? String == "ready" })
            let added = try alice.items("alice")[1]
            #expect(added["title"] as? String == "sunset <b>.png")
            #expect(added["hash"] as? String == Self.sha256(bytes))
            #expect(added["bytes"] as? Int == bytes.count)
            try page.waitFor("__state.toasts.some(t => t.includes('notes.txt') && t.includes('not a PNG, JPEG or GIF'))")
            try page.waitFor(RealNodePageTests.titlesAre("a0.png,sunset <b>.png,a1.png,a2.png"), timeout: .seconds(20))
            try page.waitFor(RealCrossNodeTests.showsImage(Self.sha256(bytes), at: 1))
            #expect(try page.evaluate("document.querySelectorAll('#toasts b, #grid b').length") as? Int == 0)
            #expect(try alice.titles("alice").count == 4, "the text file added nothing")

            // The trash: tile 0 dropped on it is deleted on the node.
            try page.settle()
            _ = try page.dragAndDrop(from: BrowserPage.tile(ids[0]), to: page.center(of: "#trash"))
            #expect(try alice.waitUntil { try $0.ids("alice") == [added["id"] as? String ?? "", ids[1], ids[2]] })
            try page.waitFor(RealNodePageTests.titlesAre("sunset <b>.png,a1.png,a2.png"), timeout: .seconds(20))

            // A title that is HTML shows as text: no element made of it, no script run.
            try page.evaluate("window.alert = () => { window.__alerted = true; }; true")
            let hostile = "<img src=x onerror=alert(1)>"
            try alice.gallery("update", ids[2], "--title", hostile)
            try page.waitFor(RealNodePageTests.titlesAre("sunset <b>.png,a1.png,\(hostile)"), timeout: .seconds(20))
            try page.evaluate("new Promise(r => setTimeout(r, 200))")
            #expect(try page.evaluate("document.querySelectorAll('#grid .caption *, #grid img[src=x]').length") as? Int == 0)
            #expect(try page.evaluate("window.__alerted === true") as? Bool == false)
        }
    }

    @Test("A change made by the CLI on a third node (via a second) appears on the page; the page reconnects after its node restarts and shows what it missed")
    func thirdNodeAndRestart() throws {
        try RealSpace.run("real-restart") { space in
            let alice = try space.node("alice")
            try alice.gallery(["add"] + (0..<2).map { try space.file("a\($0).png", RealPictures.png(palette: $0)) })
            // carol knows only bob: her changes reach alice through bob.
            let bob = try space.node("bob", peers: [alice])
            let carol = try space.node("carol", peers: [bob])
            try #require(carol.waitUntil { try $0.ids("alice").count == 2 }, "carol did not sync")
            let page = try space.open(alice, newWindow: false)
            #expect(try page.tileTitles() == "a0.png,a1.png")

            // carol's command line adds to alice's gallery; alice's page shows it.
            #expect(try bob.ids("alice").count == 2)
            try carol.gallery("add", try space.file("c0.png", RealPictures.png(palette: 5)), "--to", "alice", "--at", "1")
            try page.waitFor(RealNodePageTests.titlesAre("a0.png,c0.png,a1.png"), timeout: .seconds(20))

            // alice stops: the page says so. Meanwhile carol adds and moves; alice restarts on the same
            // ports and the page, reconnected, shows exactly those changes.
            alice.stop()
            try page.waitFor("document.getElementById('connection').classList.contains('offline')", timeout: .seconds(10))
            try carol.gallery("add", try space.file("c1.png", RealPictures.png(palette: 6)), "--to", "alice", "--at", "0")
            try carol.gallery("move", "alice:3", "--to", "alice", "--at", "1")
            try alice.start()
            #expect(try alice.waitUntil { try $0.titles("alice") == ["c1.png", "a1.png", "a0.png", "c0.png"] },
                    "alice got carol's changes after the restart")
            try page.waitFor("document.getElementById('connection').classList.contains('live')", timeout: .seconds(20))
            try page.waitFor(RealNodePageTests.titlesAre("c1.png,a1.png,a0.png,c0.png"), timeout: .seconds(20))
            #expect(try page.evaluate("document.querySelectorAll('#grid .tile').length") as? Int == 4, "nothing shown twice")
        }
    }
}

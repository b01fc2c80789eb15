import Foundation
import GalleryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The Chromium driver's own promises: spawn hygiene, a clean close, and errors instead of hangs.
@Suite("Browser driver", .enabled(if: BrowserBinary.testsEnabled, "needs Chromium (see README set-up)"))
struct BrowserDriverTests {
    #if os(Linux)
    @Test("Chromium inherits no descriptor of the test process but its DevTools pipe")
    func spawnHygiene() throws {
        let leaky = Pipe()  // Foundation's pipes are inheritable (no FD_CLOEXEC).
        let leakyTargets = [leaky.fileHandleForReading.fileDescriptor, leaky.fileHandleForWriting.fileDescriptor]
            .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
        #expect(leakyTargets.count == 2)
        let browser = try Browser.launch()
        defer { browser.close() }
        let folder = "/proc/\(browser.processIdentifier)/fd"
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: folder)
        let targets = descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)") }
        #expect(!targets.isEmpty)
        let leaked = leakyTargets.filter { targets.contains($0) }
        #expect(leaked.isEmpty, "the test's pipe leaked into Chromium: \(leaked)")
        let pipeEnds = ["3", "4"].compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)") }
        #expect(pipeEnds.count == 2 && pipeEnds.allSatisfy { $0.hasPrefix("pipe:") })
        try? leaky.fileHandleForReading.close()
        try? leaky.fileHandleForWriting.close()
    }
    #endif

    @Test("close() ends the browser process and removes its profile; a second close is harmless")
    func closeCleansUp() throws {
        let browser = try Browser.launch()
        let pid = browser.processIdentifier
        #expect(browser.product.contains("Chrome/"))
        #expect(FileManager.default.fileExists(atPath: browser.profileDirectory.path))
        #expect(kill(pid, 0) == 0)
        browser.close()
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the browser process must be reaped")
        #expect(!FileManager.default.fileExists(atPath: browser.profileDirectory.path))
        browser.close()
        #expect(throws: BrowserError.self) { _ = try browser.newPage(url: "about:blank") }
    }

    @Test("A throwing script, a false condition and a missing element are errors within their deadlines")
    func errorsNotHangs() throws {
        let browser = try Browser.launch()
        defer { browser.close() }
        let page = try browser.newPage(url: "about:blank")
        #expect(try page.evaluate("6 * 7") as? Int == 42)
        #expect(try page.evaluate("Promise.resolve('later')") as? String == "later")
        #expect(try page.evaluate("undefined") == nil)
        do {
            try page.evaluate("(() => { throw new Error('boom') })()")
            Issue.record("a throwing script must throw")
        } catch {
            guard case .javaScript(let text) = error else { Issue.record("wrong error \(error)"); return }
            #expect(text.contains("boom"))
        }
        let started = ContinuousClock.now
        #expect(throws: BrowserError.self) { try page.waitFor("false", timeout: .milliseconds(300)) }
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(throws: BrowserError.self) { _ = try page.center(of: "#nothing-here") }
        #expect(BrowserPage.jsString("a'b\"c\n</script>") == #""a'b\"c\n<\/script>""#)
    }
}

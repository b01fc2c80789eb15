import Foundation
import Synchronization

/// A headless Chromium driven over the DevTools protocol (`--remote-debugging-pipe`), for tests.
///
/// ```swift
/// let browser = try Browser.launch()
/// defer { browser.close() }
/// let page = try browser.newPage(url: "http://127.0.0.1:\(port)/")
/// try page.waitFor("document.querySelectorAll('.tile').length == 5")
/// ```
/// Every call blocks the calling thread until Chromium answers (or its timeout passes), so call it from
/// a test function, not from the cooperative pool's hot paths. One connection, flat sessions: browser
/// commands carry no session id; each page's commands carry the id from `Target.attachToTarget`.
///
/// `close()` ends the process for sure: `Browser.close`, then `waitpid` with a SIGKILL fallback, then
/// `killpg` for helpers left behind, then the temporary profile is removed. If the test process itself
/// is killed, Chromium exits on its own when the pipe reaches EOF.
package final class Browser: Sendable {
    /// The options a browser starts with.
    package struct Options: Sendable {
        /// The window size of new windows, in CSS pixels.
        package var windowSize: (width: Int, height: Int) = (1000, 700)
        /// Extra command-line flags.
        package var extraArguments: [String] = []
        /// How long to wait for each DevTools reply.
        package var commandTimeout: Duration = .seconds(10)

        /// The defaults: 1000x700, no extra flags, 10 s per command.
        package init() {}
    }

    /// "Chrome/156.0.8078.79" (from `Browser.getVersion`).
    package let product: String
    /// The binary that runs.
    package let binaryPath: String
    /// The browser process's ID (also its process group's).
    package var processIdentifier: Int32 { process.pid }
    /// The temporary profile folder, removed by `close()`.
    package let profileDirectory: URL
    let pipe: DevToolsPipe
    let options: Options
    private let process: ChromiumProcess
    /// Whether `close` ran (it ends the browser once).
    private let closed = Atomic(false)

    /// Starts Chromium headless with a fresh temporary profile and waits for its first DevTools reply.
    /// - Throws: `.notInstalled` when no binary exists (see `BrowserBinary`), `.launchFailed`, `.timeout`.
    package static func launch(_ options: Options = Options()) throws(BrowserError) -> Browser {
        guard let path = BrowserBinary.path else {
            throw .notInstalled("tried \(BrowserBinary.candidates.joined(separator: ", ")); install with: \(BrowserBinary.installHint)")
        }
        let profile = FileManager.default.temporaryDirectory
            .appendingPathComponent("gallery-chromium-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        } catch {
            throw .launchFailed("cannot create the profile folder \(profile.path): \(error.localizedDescription)")
        }
        var arguments = [
            "--headless=new", "--remote-debugging-pipe", "--user-data-dir=\(profile.path)",
            "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-extensions", "--disable-component-update", "--disable-sync", "--mute-audio",
            "--hide-scrollbars", "--disable-dev-shm-usage",
            "--window-size=\(options.windowSize.width),\(options.windowSize.height)",
        ]
        if geteuid() == 0 { arguments.append("--no-sandbox") }  // Chromium refuses to run as root otherwise.
        arguments += options.extraArguments
        arguments.append("about:blank")
        let process: ChromiumProcess
        do {
            process = try ChromiumProcess(path: path, arguments: arguments,
                                          logPath: profile.appendingPathComponent("chromium.log").path)
        } catch {
            try? FileManager.default.removeItem(at: profile)
            throw error
        }
        let pipe = DevToolsPipe(writeDescriptor: process.commandDescriptor, readDescriptor: process.replyDescriptor)
        do {
            let version = try pipe.send("Browser.getVersion", timeout: .seconds(20))
            return Browser(product: version["product"] as? String ?? "?", binaryPath: path, pipe: pipe,
                           options: options, process: process, profile: profile)
        } catch {
            let log = (try? String(contentsOf: profile.appendingPathComponent("chromium.log"), encoding: .utf8)) ?? ""
            process.terminate(grace: .milliseconds(200))
            try? FileManager.default.removeItem(at: profile)
            throw .launchFailed("\(error.localizedDescription); Chromium's log: \(log.suffix(2000))")
        }
    }

    private init(product: String, binaryPath: String, pipe: DevToolsPipe, options: Options,
                 process: ChromiumProcess, profile: URL) {
        self.product = product
        self.binaryPath = binaryPath
        self.pipe = pipe
        self.options = options
        self.process = process
        self.profileDirectory = profile
    }

    deinit {
        close()
    }

    /// Opens `url` in a new tab (or a new window), attaches a flat session and waits for its load event.
    package func newPage(url: String, newWindow: Bool = false) throws(BrowserError) -> BrowserPage {
        let created = try pipe.send("Target.createTarget", ["url": "about:blank", "newWindow": newWindow],
                                    timeout: options.commandTimeout)
        guard let targetId = created["targetId"] as? String else { throw .unexpectedReply("a targetId") }
        let attached = try pipe.send("Target.attachToTarget", ["targetId": targetId, "flatten": true],
                                     timeout: options.commandTimeout)
        let sessionId: String
        if let replied = attached["sessionId"] as? String {
            sessionId = replied
        } else {
            // Seen once in five runs on a loaded machine: a reply without the session. The
            // `attachedToTarget` event names it too.
            let event = try pipe.waitForEvent("Target.attachedToTarget", session: nil, timeout: options.commandTimeout) {
                (($0.params["targetInfo"] as? [String: Any])?["targetId"] as? String) == targetId
            }
            guard let announced = event.params["sessionId"] as? String else {
                throw .unexpectedReply("a sessionId (the reply was \(attached))")
            }
            sessionId = announced
        }
        let page = BrowserPage(browser: self, targetId: targetId, sessionId: sessionId)
        try page.send("Page.enable")
        try page.send("Runtime.enable")
        // Headless windows are never focused; without this, focus and keyboard events misbehave.
        try page.send("Emulation.setFocusEmulationEnabled", ["enabled": true])
        try page.navigate(to: url)
        return page
    }

    /// Ends the browser for sure and removes its profile. Idempotent; safe from deinit.
    package func close() {
        let first = !closed.exchange(true, ordering: .acquiringAndReleasing)
        guard first else { return }
        _ = try? pipe.send("Browser.close", timeout: .seconds(2))
        process.terminate(grace: .seconds(3))
        pipe.waitForReaderEnd(timeout: .seconds(2))
        try? FileManager.default.removeItem(at: profileDirectory)
    }
}

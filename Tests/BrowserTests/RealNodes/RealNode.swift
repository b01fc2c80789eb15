import Foundation
import GalleryTestSupport
import Testing

/// A real `gallery serve DIR --http` process for the page tests: its sign-in link and web port, its
/// peer address, the command line on its directory. Restartable on the same web and peer ports, so
/// that a page's origin survives its node's restart.
final class RealNode: @unchecked Sendable {
    // `@unchecked Sendable`: used by one test at a time, from its own thread.
    let name: String
    let directory: URL
    private(set) var process: ServeProcess?
    /// The `web: ` link (with the token).
    private(set) var link = ""
    /// The web port (kept across restarts).
    private(set) var webPort: UInt16 = 0
    /// The peer protocol's `HOST:PORT` (kept across restarts).
    private(set) var address = ""
    private let arguments: [String]

    /// Starts a node named `name` in `base`, with `arguments` (secret file, peers) added.
    init(_ name: String, base: URL, arguments: [String]) throws {
        self.name = name
        directory = base.appendingPathComponent(name)
        self.arguments = arguments
        try start()
    }

    /// Starts (or restarts, on the same addresses) the node.
    func start() throws {
        var command = [directory.path, "--name", name] + arguments
        if !address.isEmpty { command += ["--listen", address] }
        command += ["--http"] + (webPort == 0 ? [] : ["127.0.0.1:\(webPort)"])
        let process = try ServeProcess(command)
        let endpoint = try #require(process.endpoint, "\(name) did not start: \(process.standardError)")
        let line = try #require(process.standardOutput.split(separator: "\n").first { $0.hasPrefix("web: ") },
                                "no web line: \(process.standardOutput)")
        link = String(line.dropFirst("web: ".count))
        webPort = UInt16(try #require(URLComponents(string: link)?.port))
        address = endpoint.description
        self.process = process
    }

    /// Stops the node (SIGTERM, then reaped).
    func stop() {
        process?.stop()
        process = nil
    }

    /// Runs `gallery -C DIR ARGUMENTS`; records a test issue when it fails.
    @discardableResult
    func gallery(_ arguments: String...) throws -> GalleryProcess.Result {
        try gallery(arguments)
    }

    /// Runs `gallery -C DIR ARGUMENTS`; records a test issue when it fails.
    @discardableResult
    func gallery(_ arguments: [String]) throws -> GalleryProcess.Result {
        let result = try GalleryProcess.run(["-C", directory.path] + arguments)
        #expect(result.status == 0, "gallery \(arguments.joined(separator: " ")) on \(name): \(result.stderr)")
        return result
    }

    /// The items of `gallery` as `list --json` shows them ([] when unknown here).
    func items(_ gallery: String) throws -> [[String: Any]] {
        let result = try GalleryProcess.run(["-C", directory.path, "list", gallery, "--json"])
        guard result.status == 0 else { return [] }
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["items"] as? [[String: Any]] ?? []
    }

    /// The IDs of `gallery`'s items, in order.
    func ids(_ gallery: String) throws -> [String] {
        try items(gallery).map { $0["id"] as? String ?? "" }
    }

    /// The titles of `gallery`'s items, in order.
    func titles(_ gallery: String) throws -> [String] {
        try items(gallery).map { $0["title"] as? String ?? "" }
    }

    /// Polls `condition` every 50 ms for at most `timeout`; true once it held.
    func waitUntil(timeout: TimeInterval = 20, _ condition: (RealNode) throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition(self) { return true }
            usleep(50_000)
        }
        return try condition(self)
    }
}

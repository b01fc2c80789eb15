import Foundation
import GalleryTestSupport
import Testing

/// A `gallery serve DIR --http` process for the web adapter's tests: its sign-in link, token and
/// port, requests sent with the session cookie and the right `Origin`, and the command line on
/// its directory. Restartable on the same web port (a page's origin survives its node's restart).
final class WebNode: @unchecked Sendable {
    // `@unchecked Sendable`: used by one test at a time.
    let directory: URL
    let name: String
    private(set) var process: ServeProcess?
    private(set) var port: UInt16 = 0
    private(set) var token = ""
    private var extra: [String]

    /// Starts a node on a fresh directory under `base` (created), with `arguments` added.
    init(_ name: String, base: URL, arguments: [String] = []) throws {
        directory = base.appendingPathComponent(name)
        self.name = name
        extra = arguments
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        try start()
    }

    /// Starts (or restarts, on the same web port) the node.
    func start() throws {
        let http = port == 0 ? [] : ["127.0.0.1:\(port)"]
        let process = try ServeProcess([directory.path, "--name", name] + extra + ["--http"] + http)
        let line = try #require(process.standardOutput.split(separator: "\n").first { $0.hasPrefix("web: ") },
                                "no web line: \(process.standardOutput) \(process.standardError)")
        let link = String(line.dropFirst("web: ".count))
        let components = try #require(URLComponents(string: link))
        port = UInt16(try #require(components.port))
        token = try #require(components.queryItems?.first { $0.name == "token" }?.value)
        self.process = process
    }

    /// Stops the node with SIGTERM.
    func stop() {
        process?.stop()
        process = nil
    }

    /// `127.0.0.1:PORT`.
    var host: String { "127.0.0.1:\(port)" }
    /// `http://127.0.0.1:PORT`.
    var origin: String { "http://\(host)" }

    /// A new connection to the web port.
    func client() throws -> WebClient { try WebClient(port: port) }

    /// The fields a signed-in page sends (cookie; for changes, `Origin` and the content type).
    func fields(change contentType: String? = nil) -> [(String, String)] {
        var fields = [("Cookie", "gallery_session=\(token)")]
        if let contentType { fields += [("Origin", origin), ("Content-Type", contentType)] }
        return fields
    }

    /// GET with the cookie, on a new connection.
    func get(_ target: String, headers: [(String, String)] = []) throws -> WebClient.Response {
        let client = try client()
        client.send("GET", target, host: host, headers: fields() + headers)
        return try #require(client.response(), "no answer to GET \(target)")
    }

    /// POST of a JSON object, signed in, on a new connection.
    func post(_ target: String, _ object: [String: Any]) throws -> WebClient.Response {
        let client = try client()
        let body = try Array(JSONSerialization.data(withJSONObject: object))
        client.send("POST", target, host: host, headers: fields(change: "application/json"), body: body)
        return try #require(client.response(), "no answer to POST \(target)")
    }

    /// Runs `gallery -C DIR ARGUMENTS`.
    @discardableResult
    func gallery(_ arguments: String...) throws -> GalleryProcess.Result {
        try gallery(arguments)
    }

    /// Runs `gallery -C DIR ARGUMENTS`.
    @discardableResult
    func gallery(_ arguments: [String]) throws -> GalleryProcess.Result {
        try GalleryProcess.run(["-C", directory.path] + arguments)
    }

    /// The items of a gallery as `list --json` shows them.
    func items(_ gallery: String) throws -> [[String: Any]] {
        let result = try GalleryProcess.run(["-C", directory.path, "list", gallery, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["items"] as? [[String: Any]] ?? []
    }

    /// The IDs of a gallery's items, in order.
    func ids(_ gallery: String) throws -> [String] {
        try items(gallery).map { $0["id"] as? String ?? "" }
    }
}

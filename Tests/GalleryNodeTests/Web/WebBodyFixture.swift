import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
@testable import GalleryWeb

/// A real node and its web server on 127.0.0.1 (port 0), for the request-body and page-file
/// tests: requests signed in (token cookie, `Host`, `Origin`) over one keep-alive connection.
final class WebBodyFixture {
    let cluster: TestCluster
    let server: WebServer
    let directory: URL
    let token: String
    private var connection: WebTestClient?

    /// `assets`: the page-file override's directory (nil: the embedded page).
    init(assets: String? = nil) throws {
        cluster = try TestCluster(["web"])
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-web-body-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            server = try WebServer(node: cluster.nodes[0], directory: directory, listen: Endpoint(host: "127.0.0.1", port: 0),
                                   temporaryDirectory: directory.appendingPathComponent("tmp"), limits: WebConnection.Limits(),
                                   assets: assets)
        } catch {
            cluster.stop()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        try cluster.nodes[0].perform { try $0.createGallery("web") }
        token = try String(contentsOf: directory.appendingPathComponent("http-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        connection?.close()
        server.stop()
        cluster.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var node: SyncNode { cluster.nodes[0] }
    var port: UInt16 { server.endpoint.port }

    /// The kept-alive connection (a new one when the server closed the last).
    private func client() throws -> WebTestClient {
        if let connection { return connection }
        let made = try WebTestClient(port: port, timeout: 10)
        connection = made
        return made
    }

    /// Sends `request` and reads its answer on the kept connection; a closed connection is
    /// reported as status 0 (and the next request opens a new one).
    func exchange(_ request: String) throws -> WebTestClient.Response {
        let client = try client()
        client.send(request)
        do {
            let response = try client.readResponse()
            // A refusal that closes the connection: the next request opens a new one.
            if response.head.lowercased().contains("connection: close") {
                client.close()
                connection = nil
            }
            return response
        } catch WebTestClient.Failure.closed {
            connection = nil
            return WebTestClient.Response(status: 0, head: "", body: [])
        }
    }

    /// A signed-in POST of `body` as JSON.
    func post(_ path: String, _ body: String) throws -> WebTestClient.Response {
        let bytes = Array(body.utf8)
        return try exchange("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: gallery_session=\(token)\r\n"
            + "Origin: http://127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(bytes.count)\r\n\r\n" + body)
    }

    /// A signed-in GET.
    func get(_ path: String) throws -> WebTestClient.Response {
        try exchange("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: gallery_session=\(token)\r\n\r\n")
    }
}

extension WebTestClient.Response {
    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }
}

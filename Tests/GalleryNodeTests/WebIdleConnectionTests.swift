import Foundation
import GalleryIO
import GalleryWeb
import Testing

extension NodeSuites {
    /// The web adapter closes connections that hold a thread for nothing, and keeps event streams.
    @Suite("Web adapter idle connections")
    struct WebIdleConnectionTests {
        /// Reads from `pair` on a thread of its own until the server closes it; true when it did
        /// within `timeout`.
        private func closesWithin(_ timeout: TimeInterval, _ pair: StreamPair) -> Bool {
            let closed = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while pair.input.read(&buffer, maxLength: buffer.count) > 0 {}
                closed.signal()
            }
            return closed.wait(timeout: .now() + timeout) == .success
        }

        @Test("a connection silent past the idle limit is closed; an event stream is not; the server serves on")
        func idleConnectionsClose() throws {
            let cluster = try TestCluster(["web"])
            defer { cluster.stop() }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-web-idle-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try WebServer(node: cluster.nodes[0], directory: directory, listen: Endpoint(host: "127.0.0.1", port: 0),
                                       temporaryDirectory: directory.appendingPathComponent("tmp"), idleLimit: .milliseconds(400))
            defer { server.stop() }
            let token = try #require(try String(contentsOf: directory.appendingPathComponent("http-token"), encoding: .utf8)
                .split(separator: "\n").first.map(String.init))
            let host = "127.0.0.1:\(server.endpoint.port)"

            // A slow-loris head: half a request, then nothing.
            let silent = try Connector.connect(to: server.endpoint)
            _ = silent.output.writeAll(Array("GET /api/status HTTP/1.1\r\nHost: ".utf8))
            // An event stream: it writes nothing for 15 s, yet stays.
            let stream = try Connector.connect(to: server.endpoint)
            _ = stream.output.writeAll(Array("GET /api/events HTTP/1.1\r\nHost: \(host)\r\nCookie: gallery_session=\(token)\r\n\r\n".utf8))
            #expect(closesWithin(5, silent), "the silent connection was not closed")
            #expect(!closesWithin(1.5, stream), "the event stream was closed")
            stream.close()

            // The server still answers.
            let fresh = try Connector.connect(to: server.endpoint)
            defer { fresh.close() }
            _ = fresh.output.writeAll(Array("GET /api/status HTTP/1.1\r\nHost: \(host)\r\nCookie: gallery_session=\(token)\r\nConnection: close\r\n\r\n".utf8))
            var answer: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = fresh.input.read(&buffer, maxLength: buffer.count)
                if count <= 0 { break }
                answer += buffer[0..<count]
            }
            #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
        }
    }
}

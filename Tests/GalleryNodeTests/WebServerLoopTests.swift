import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
@testable import GalleryWeb
import Testing
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

extension NodeSuites {
    /// The web server on the node's event loops, over real TCP on 127.0.0.1: many open event
    /// streams, keep-alive, pipelining, and the bounds that keep one client from hurting others.
    @Suite("Web server on event loops")
    struct WebServerLoopTests {
        /// A node and its web server, with the session cookie and `Host` a request needs.
        final class Fixture {
            let cluster: TestCluster
            let server: WebServer
            let directory: URL
            let token: String

            init(idleLimit: Duration = .seconds(30), headerTimeout: Duration = .seconds(10), outboxLimit: Int? = nil) throws {
                cluster = try TestCluster(["web"])
                try cluster.nodes[0].perform { try $0.createGallery("web") }
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-web-loop-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                var limits = WebConnection.Limits()
                limits.idleLimit = idleLimit
                limits.headerTimeout = headerTimeout
                if let outboxLimit { limits.outboxLimit = outboxLimit }
                server = try WebServer(node: cluster.nodes[0], directory: directory, listen: Endpoint(host: "127.0.0.1", port: 0),
                                       temporaryDirectory: directory.appendingPathComponent("tmp"), limits: limits)
                token = try String(contentsOf: directory.appendingPathComponent("http-token"), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }

            deinit {
                server.stop()
                cluster.stop()
                try? FileManager.default.removeItem(at: directory)
            }

            var port: UInt16 { server.endpoint.port }

            /// A GET with the session cookie.
            func get(_ path: String, close: Bool = false) -> String {
                "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: gallery_session=\(token)\r\n"
                    + (close ? "Connection: close\r\n" : "") + "\r\n"
            }

            func client(timeout: Double = 5, receiveBuffer: Int32? = nil) throws -> WebTestClient {
                try WebTestClient(port: port, timeout: timeout, receiveBuffer: receiveBuffer)
            }
        }

        /// Raises the soft descriptor limit to at least `wanted` (up to the hard limit).
        private func raiseDescriptorLimit(to wanted: UInt64) {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
            limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }

        /// What the page loads, in the order a browser asks, on one keep-alive connection.
        private func loadPage(_ fixture: Fixture) throws -> Duration {
            let started = ContinuousClock.now
            let client = try fixture.client()
            for path in ["/", "/assets/app.css", "/assets/app.js", "/api/status", "/api/galleries", "/api/galleries/web/items"] {
                client.send(fixture.get(path))
                let response = try client.readResponse()
                #expect(response.status == 200, "\(path): \(response.head)")
            }
            return ContinuousClock.now - started
        }

        @Test("1,000 open event streams: the page still loads in under 200 ms, and every stream gets the next change")
        func thousandEventStreams() throws {
            raiseDescriptorLimit(to: 4_096)
            let fixture = try Fixture()
            var streams: [WebTestClient] = []
            for _ in 0..<1_000 {
                let stream = try fixture.client(timeout: 10)
                stream.send(fixture.get("/api/events"))
                streams.append(stream)
            }
            for stream in streams {
                let (status, _) = try stream.readHead()
                #expect(status == 200)
                try stream.read(until: "retry: 500\n\n")
            }
            #expect(fixture.server.connectionCount == 1_000)
            var best = Duration.seconds(60)
            for _ in 0..<3 { best = min(best, try loadPage(fixture)) }
            #expect(best < .milliseconds(200), "the page took \(best) with 1,000 open event streams")

            try fixture.cluster.nodes[0].perform { try $0.createGallery("after the streams") }
            for stream in streams { try stream.read(until: "after the streams") }
            streams.forEach { $0.close() }
        }

        @Test("three requests in one write are answered in order; the connection is kept and reused")
        func pipeliningAndKeepAlive() throws {
            let fixture = try Fixture()
            let client = try fixture.client()
            client.send(fixture.get("/api/status") + fixture.get("/assets/app.css") + fixture.get("/api/galleries"))
            let status = try client.readResponse()
            let css = try client.readResponse()
            let galleries = try client.readResponse()
            #expect(status.status == 200 && status.text.contains("\"node\":\"web\""))
            #expect(css.status == 200 && css.head.lowercased().contains("content-type: text/css"))
            #expect(galleries.status == 200 && galleries.text.contains("\"galleries\""))
            // The same connection again, twice.
            client.send(fixture.get("/api/status"))
            #expect(try client.readResponse().status == 200)
            client.send(fixture.get("/api/galleries", close: true))
            let last = try client.readResponse()
            #expect(last.status == 200 && last.head.lowercased().contains("connection: close"))
            #expect(client.closedByServer())
        }

        @Test("a slow-loris head is closed after the header timeout while others are served")
        func slowLorisTimesOut() throws {
            let fixture = try Fixture(headerTimeout: .milliseconds(600))
            let loris = try fixture.client(timeout: 4)
            let request = Array(fixture.get("/api/status"))
            let started = ContinuousClock.now
            var sent = 0
            var servedMeanwhile = 0
            // One byte every 100 ms: never silent for long, never done.
            while ContinuousClock.now - started < .seconds(3), sent < request.count - 2 {
                loris.send(String(request[sent]))
                sent += 1
                Thread.sleep(forTimeInterval: 0.1)
                if sent % 5 == 0 {
                    let other = try fixture.client()
                    other.send(fixture.get("/api/status", close: true))
                    if try other.readResponse().status == 200 { servedMeanwhile += 1 }
                }
                if fixture.server.connectionCount == 0 { break }
            }
            #expect(loris.closedByServer())
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect(servedMeanwhile >= 1)
        }

        @Test("a malformed request closes its own connection only")
        func malformedRequestClosesOnlyItself() throws {
            let fixture = try Fixture()
            let good = try fixture.client()
            good.send(fixture.get("/api/status"))
            #expect(try good.readResponse().status == 200)
            let bad = try fixture.client()
            bad.send("GET /api/status HTTP/1.1\nHost: 127.0.0.1:\(fixture.port)\n\n")
            let refusal = try bad.readResponse()
            #expect(refusal.status == 400)
            #expect(bad.closedByServer())
            good.send(fixture.get("/api/galleries"))
            #expect(try good.readResponse().status == 200)
        }

        @Test("an event stream whose reader lets its backlog grow past the limit is dropped")
        func slowEventReaderIsDropped() throws {
            let fixture = try Fixture(outboxLimit: 64 << 10)
            let slow = try fixture.client(timeout: 10, receiveBuffer: 4_096)
            slow.send(fixture.get("/api/events"))
            #expect(try slow.readHead().status == 200)
            let node = fixture.cluster.nodes[0]
            let name = String(repeating: "n", count: 190)
            var round = 0
            // Each round is one message of about 40 KB; the socket buffers take some, then the
            // outbox fills.
            while fixture.server.connectionCount > 0, round < 400 {
                try node.perform { replica in
                    for index in 0..<100 { try replica.createGallery("\(name) \(round) \(index)") }
                }
                _ = fixture.server.connectionCount
                round += 1
                Thread.sleep(forTimeInterval: 0.005)
            }
            #expect(fixture.server.connectionCount == 0, "the slow reader was kept after \(round) rounds")
            // A reader that keeps up is served on.
            let fresh = try fixture.client()
            fresh.send(fixture.get("/api/status", close: true))
            #expect(try fresh.readResponse().status == 200)
        }
    }
}

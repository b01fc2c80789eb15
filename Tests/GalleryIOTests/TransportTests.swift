import Dispatch
import Foundation
@testable import GalleryIO
import Synchronization
import Testing


// Real TCP on loopback with ephemeral ports. Every blocking call runs on a dedicated `Thread`
// (never the cooperative pool) and every wait is bounded by a timeout.

@Suite("Transport")
struct TransportTests {
    // MARK: Endpoint

    @Test("Endpoint parses HOST:PORT and [IPv6]:PORT and rejects the rest")
    func endpointParsing() {
        #expect(Endpoint("127.0.0.1:8080") == Endpoint(host: "127.0.0.1", port: 8080))
        #expect(Endpoint("localhost:0") == Endpoint(host: "localhost", port: 0))
        #expect(Endpoint("example.org:65535") == Endpoint(host: "example.org", port: 65535))
        #expect(Endpoint("[::1]:9000") == Endpoint(host: "::1", port: 9000))
        #expect(Endpoint("[fe80::1%eth0]:1") == Endpoint(host: "fe80::1%eth0", port: 1))

        #expect(Endpoint("localhost") == nil, "missing port")
        #expect(Endpoint("localhost:") == nil, "empty port")
        #expect(Endpoint(":80") == nil, "empty host")
        #expect(Endpoint("host:65536") == nil, "port out of range")
        #expect(Endpoint("host:-1") == nil)
        #expect(Endpoint("host:+80") == nil)
        #expect(Endpoint("host:8o") == nil)
        #expect(Endpoint("host:0080080") == nil)
        #expect(Endpoint("::1:80") == nil, "unbracketed IPv6")
        #expect(Endpoint("[::1]") == nil, "bracketed without port")
        #expect(Endpoint("[::1]80") == nil)
        #expect(Endpoint("[::1:80") == nil)
        #expect(Endpoint("[localhost]:80") == nil, "brackets are for IPv6")
        #expect(Endpoint("my host:80") == nil)
        #expect(Endpoint("") == nil)

        #expect(Endpoint(host: "::1", port: 7).description == "[::1]:7")
        #expect(Endpoint(host: "10.0.0.1", port: 7).description == "10.0.0.1:7")
        for text in ["[::1]:7", "10.0.0.1:7", "localhost:65535"] {
            #expect(Endpoint(text)?.description == text)
        }
    }

    // MARK: Listener

    @Test("A listener on port 0 reports the real port it got")
    func listenerReportsEphemeralPort() async throws {
        let listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        #expect(listener.endpoint.host == "127.0.0.1")
        #expect(listener.endpoint.port != 0)

        let (client, server) = try await connectedPair(listener)
        defer { client.close(); server.close() }
        #expect(client.remote == "127.0.0.1:\(listener.endpoint.port)")
        #expect(server.remote.hasPrefix("127.0.0.1:"))
        #expect(server.remote != client.remote)
    }

    @Test("accept after close throws .closed, and close wakes a blocked accept")
    func acceptAfterClose() throws {
        // Synchronous, on its own thread and semaphores: it needs no second thread of the
        // cooperative pool, which the whole suite running in parallel on 2 cores can hold for
        // minutes (an `async let` child here once waited 300 s to start).
        let listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let clock = ContinuousClock()
        let outcome = Mutex<(error: TransportError?, wokeAt: ContinuousClock.Instant)?>(nil)
        let thread = Thread {
            started.signal()
            let error = caught { _ = try listener.accept() }
            outcome.withLock { $0 = (error, clock.now) }
            finished.signal()
        }
        thread.name = "transport-test-accept"
        thread.start()
        try #require(started.wait(timeout: .now() + 90) == .success, "the accepting thread did not start")
        usleep(20_000)  // Most likely parked in poll by now; either way is correct.
        let closedAt = clock.now
        listener.close()
        try #require(finished.wait(timeout: .now() + 90) == .success, "close did not wake the blocked accept")
        let (error, wokeAt) = try #require(outcome.withLock { $0 })
        #expect(error == .closed)
        #expect(wokeAt - closedAt < .seconds(2))

        #expect(caught { _ = try listener.accept() } == .closed)
        listener.close()  // Idempotent.
        #expect(caught { _ = try listener.accept() } == .closed)
    }

    @Test("Binding a port that is taken fails with .bind")
    func bindConflict() throws {
        let listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        let error = caught { _ = try Listener(listener.endpoint) }
        guard case .bind(let endpoint, let reason)? = error else {
            Issue.record("expected .bind, got \(String(describing: error))")
            return
        }
        #expect(endpoint == listener.endpoint.description)
        #expect(reason.contains("bind"))
    }

    // MARK: Connector

    @Test("Connecting to a port with no listener fails fast with .connect")
    func connectRefused() async throws {
        let listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        let endpoint = listener.endpoint
        listener.close()

        // Timed on the connecting thread: the test task itself may wait for a busy thread pool.
        let (error, elapsed) = try await onThread("connect") { () -> (TransportError?, Duration) in
            let clock = ContinuousClock()
            let start = clock.now
            let error = caught { _ = try Connector.connect(to: endpoint) }
            return (error, clock.now - start)
        }
        #expect(elapsed < .seconds(1))
        guard case .connect(let label, let reason)? = error else {
            Issue.record("expected .connect, got \(String(describing: error))")
            return
        }
        #expect(label == endpoint.description)
        #expect(reason.contains("refused"))
        #expect(error?.errorDescription?.contains(endpoint.description) == true)
    }

    @Test("Connecting to a listener whose queue is full times out with .connect")
    func connectTimeout() async throws {
        let listener = try Listener(Endpoint(host: "127.0.0.1", port: 0), backlog: 0)
        defer { listener.close() }
        let endpoint = listener.endpoint
        // Never accepted: once the tiny queue is full, further handshakes stall.
        let outcome = try await onThread("connect-until-stalled") { () -> (TransportError?, Duration, [StreamPair]) in
            let clock = ContinuousClock()
            var held: [StreamPair] = []
            for _ in 0..<8 {
                let start = clock.now
                do {
                    held.append(try Connector.connect(to: endpoint, timeout: .milliseconds(300)))
                } catch {
                    return (error as? TransportError, clock.now - start, held)
                }
            }
            return (nil, .zero, held)
        }
        defer { outcome.2.forEach { $0.close() } }
        guard case .connect(_, let reason)? = outcome.0 else {
            Issue.record("expected a .connect timeout, got \(String(describing: outcome.0))")
            return
        }
        #expect(reason.contains("timed out"))
        #expect(outcome.1 >= Duration.milliseconds(250))
        #expect(outcome.1 < Duration.seconds(2))
    }

    @Test("An unresolvable host fails with .resolve, an empty one with .invalidEndpoint")
    func resolveFailures() async throws {
        let error = try await onThread("resolve") {
            caught { _ = try Connector.connect(to: Endpoint(host: "no-such-host.invalid", port: 1)) }
        }
        guard case .resolve(let host, _)? = error else {
            Issue.record("expected .resolve, got \(String(describing: error))")
            return
        }
        #expect(host == "no-such-host.invalid")
        #expect(caught { _ = try Connector.connect(to: Endpoint(host: "", port: 1)) } == .invalidEndpoint(":1"))
        #expect(caught { _ = try Listener(Endpoint(host: "a b", port: 0)) } == .invalidEndpoint("a b:0"))
    }

    @Test("\"localhost\" reaches a listener bound on 127.0.0.1 even when ::1 is tried first")
    func localhostFallsBackToIPv4() async throws {
        let listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        let port = listener.endpoint.port

        // Through the resolver, whatever order it returns.
        let viaName = try await connectedPair(listener, to: Endpoint(host: "localhost", port: port))
        #expect(viaName.client.remote == "127.0.0.1:\(port)")
        viaName.client.close()
        viaName.server.close()

        // ::1 forced first: it is refused (or unsupported), and the IPv4 address is tried next.
        let ordered = try SocketAddress.resolve(Endpoint(host: "::1", port: port), passive: false)
            + SocketAddress.resolve(Endpoint(host: "127.0.0.1", port: port), passive: false)
        #expect(ordered.first?.text == "[::1]:\(port)")
        async let server = onThread("accept") { try listener.accept() }
        let client = try await onThread("connect") {
            try Connector.connect(toAny: ordered, label: "localhost:\(port)", deadline: .now + .seconds(5))
        }
        let accepted = try await server
        defer { client.close(); accepted.close() }
        #expect(client.remote == "127.0.0.1:\(port)")
        try await expectRoundTrip(client, accepted)
    }

    @Test("IPv6 loopback works when the host has it")
    func ipv6Loopback() async throws {
        guard let listener = try? Listener(Endpoint(host: "::1", port: 0)) else { return }  // No IPv6 here.
        defer { listener.close() }
        #expect(listener.endpoint.host == "::1")
        let (client, server) = try await connectedPair(listener)
        defer { client.close(); server.close() }
        #expect(client.remote == "[::1]:\(listener.endpoint.port)")
        #expect(Endpoint(server.remote)?.host == "::1")
        try await expectRoundTrip(client, server)
    }
}

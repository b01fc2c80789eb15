import Dispatch
import Foundation
@testable import GalleryIO
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
    func acceptAfterClose() async throws {
        let listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        let started = Gate()
        let clock = ContinuousClock()
        async let blocked = onThread("accept") { () -> (TransportError?, ContinuousClock.Instant) in
            started.open()
            let error = caught { _ = try listener.accept() }
            return (error, clock.now)  // Timed here: the test task may wait for a busy pool.
        }
        try await started.wait()
        try await Task.sleep(for: .milliseconds(20))  // Most likely parked in poll by now; either way is correct.
        let closedAt = clock.now
        listener.close()
        let (error, wokeAt) = try await blocked
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

    // MARK: Streams

    @Test("Streams come opened and behave like Foundation streams")
    func streamBasics() async throws {
        let (client, server) = try await connectedPair()
        #expect(client.input.streamStatus == .open)
        #expect(client.output.streamStatus == .open)
        #expect(client.input.hasBytesAvailable)
        #expect(client.output.hasSpaceAvailable)
        #expect(client.input.streamError == nil)
        #expect(client.input.property(forKey: .fileCurrentOffsetKey) == nil)
        var pointer: UnsafeMutablePointer<UInt8>?
        var length = 0
        #expect(!client.input.getBuffer(&pointer, length: &length))
        #expect(client.output.write([], maxLength: 0) == 0)

        client.close()
        server.close()
        #expect(client.input.streamStatus == .closed)
        #expect(client.output.streamStatus == .closed)
        #expect(!client.input.hasBytesAvailable)
        #expect(!client.output.hasSpaceAvailable)
        var byte: UInt8 = 0
        #expect(client.input.read(&byte, maxLength: 1) == 0)
        #expect(client.output.write([1], maxLength: 1) == -1)
        #expect(client.output.streamError as? TransportError == .closed)
    }

    @Test("8 MiB echoed both ways concurrently arrives intact")
    func echoEightMiB() async throws {
        let (client, server) = try await connectedPair()
        defer { client.close(); server.close() }
        let payload = pattern(count: 8 << 20, seed: 7)

        let clock = ContinuousClock()
        let start = clock.now
        async let echoed: Int = onThread("echo") {
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            var total = 0
            while true {
                let n = server.input.read(&buffer, maxLength: buffer.count)
                if n <= 0 { return total }
                guard server.output.write(buffer, maxLength: n) == n else { return -1 }
                total += n
            }
        }
        async let sent: Bool = onThread("send") { writeInChunks(client.output, payload, seed: 3) }
        async let received: [UInt8]? = onThread("receive") { readExactly(client.input, count: payload.count) }

        #expect(try await sent)
        let back = try await received
        #expect(back?.count == payload.count)
        #expect(back == payload)
        client.close()  // Ends the echo loop.
        #expect(try await echoed == payload.count)
        print("Transport: 8 MiB echoed in \(clock.now - start)")
    }

    @Test("read returns 0 (end of stream) after the peer closes")
    func endOfStreamAfterPeerCloses() async throws {
        let (client, server) = try await connectedPair()
        defer { server.close() }
        let message = Array("last words".utf8)
        #expect(client.output.write(message, maxLength: message.count) == message.count)
        client.close()

        let (data, final) = try await onThread("read") { () -> ([UInt8], Int) in
            let data = readToEnd(server.input)
            var byte: UInt8 = 0
            return (data, server.input.read(&byte, maxLength: 1))
        }
        #expect(data == message)
        #expect(final == 0)
        #expect(server.input.streamStatus == .atEnd)
        #expect(!server.input.hasBytesAvailable)
        #expect(server.input.streamError == nil)
    }

    /// Which part of a pair a test closes.
    enum CloseKind: String, CaseIterable, Sendable {
        case pair, input, output
    }

    @Test("Closing the pair, or either stream, unblocks a blocked reader promptly",
          arguments: CloseKind.allCases)
    func closeUnblocksReader(kind: CloseKind) async throws {
        let (client, server) = try await connectedPair()
        defer { client.close(); server.close() }
        let started = Gate()
        let clock = ContinuousClock()
        async let result = onThread("blocked-read") { () -> (Int, ContinuousClock.Instant) in
            started.open()
            var byte: UInt8 = 0
            let count = client.input.read(&byte, maxLength: 1)
            return (count, clock.now)  // Timed here: the test task may wait for a busy pool.
        }
        try await started.wait()
        try await Task.sleep(for: .milliseconds(20))  // Most likely parked in recv by now; either way is correct.
        let closedAt = clock.now
        switch kind {
        case .pair: client.close()
        case .input: client.input.close()
        case .output: client.output.close()
        }
        let (count, wokeAt) = try await result
        #expect(count == 0)
        let latency = wokeAt - closedAt
        #expect(latency < .seconds(2))
        print("Transport: closing the \(kind.rawValue) woke the reader after \(latency)")

        // The peer sees the connection end too.
        let peer = try await onThread("peer-read") { readToEnd(server.input) }
        #expect(peer.isEmpty)
    }

    @Test("Closing the pair unblocks a writer blocked on a peer that does not read")
    func closeUnblocksWriter() async throws {
        let (client, server) = try await connectedPair()
        defer { server.close() }
        let started = Gate()
        let clock = ContinuousClock()
        async let result = onThread("blocked-write") { () -> (Int, Int, ContinuousClock.Instant) in
            let chunk = [UInt8](repeating: 0xC3, count: 1 << 20)
            var written = 0
            started.open()
            while true {  // The peer never reads, so this blocks once the socket buffers are full.
                let n = client.output.write(chunk, maxLength: chunk.count)
                if n < 0 { return (n, written, clock.now) }
                written += n
            }
        }
        try await started.wait()
        try await Task.sleep(for: .milliseconds(50))  // Most likely stalled in send by now; either way is correct.
        let closedAt = clock.now
        client.close()
        let (last, written, wokeAt) = try await result
        #expect(last == -1)
        #expect(wokeAt - closedAt < .seconds(2))
        #expect(client.output.streamError as? TransportError == .closed)
        print("Transport: a writer stalled after \(written) bytes woke \(wokeAt - closedAt) after close")
    }

    @Test("Writing to a peer that has gone fails with -1 instead of raising SIGPIPE")
    func writeToClosedPeer() async throws {
        let (client, server) = try await connectedPair()
        defer { client.close() }
        server.close()
        let chunk = [UInt8](repeating: 0x5A, count: 64 << 10)
        let outcome = try await onThread("write") { () -> Int in
            for _ in 0..<10_000 {
                let n = client.output.write(chunk, maxLength: chunk.count)
                if n < 0 { return n }
            }
            return 0
        }
        #expect(outcome == -1)
        #expect(client.output.streamStatus == .error)
        let error = client.output.streamError as? TransportError
        guard case .io(let message)? = error else {
            Issue.record("expected .io, got \(String(describing: error))")
            return
        }
        #expect(message.hasPrefix("send: "))
        #expect(message.contains("errno"))
    }

    @Test("Many short writes and one huge write arrive intact and in order")
    func shortWritesAndHugeWrite() async throws {
        let (client, server) = try await connectedPair()
        defer { client.close(); server.close() }
        var generator = SplitMix(seed: 11)
        let small: [[UInt8]] = (0..<20_000).map { index in
            let length = Int(generator.next() % 17) + 1
            return (0..<length).map { UInt8(truncatingIfNeeded: index &+ $0) }
        }
        let huge = pattern(count: 48 << 20, seed: 5)
        let expected = small.flatMap { $0 } + huge
        let clock = ContinuousClock()
        let start = clock.now

        async let received: [UInt8] = onThread("receive") { readToEnd(server.input) }
        let wrote = try await onThread("send") { () -> Bool in
            for message in small where client.output.write(message, maxLength: message.count) != message.count {
                return false
            }
            // One call: the stream loops over short sends itself.
            let written = huge.withUnsafeBufferPointer { client.output.write($0.baseAddress!, maxLength: $0.count) }
            client.close()
            return written == huge.count
        }
        #expect(wrote)
        let data = try await received
        #expect(data.count == expected.count)
        #expect(data == expected)
        print("Transport: 20000 short writes + one 48 MiB write delivered in \(clock.now - start)")
    }

    @Test("Small request/response round trips are fast")
    func roundTripLatency() async throws {
        let (client, server) = try await connectedPair()
        defer { client.close(); server.close() }
        let rounds = 2_000
        async let echo: Void = onThread("echo") {
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                guard let frame = readExactlyInto(server.input, &buffer, count: 40) else { return }
                guard server.output.write(frame, maxLength: 40) == 40 else { return }
            }
        }
        let samples = try await onThread("ping") { () -> [Duration] in
            let clock = ContinuousClock()
            var buffer = [UInt8](repeating: 0, count: 64)
            let request = [UInt8](repeating: 0xA5, count: 40)
            var samples: [Duration] = []
            samples.reserveCapacity(rounds)
            for _ in 0..<rounds {
                let start = clock.now
                guard client.output.write(request, maxLength: 40) == 40,
                      readExactlyInto(client.input, &buffer, count: 40) != nil
                else { break }
                samples.append(clock.now - start)
            }
            return samples
        }
        client.close()
        try await echo
        #expect(samples.count == rounds)
        let sorted = samples.sorted()
        let p50 = sorted[sorted.count / 2]
        let p99 = sorted[sorted.count * 99 / 100]
        print("Transport: 40-byte round trip p50 \(p50), p99 \(p99)")
        #expect(p50 < .milliseconds(5))  // Loose: the target is far lower; this only catches Nagle-style stalls.
    }
}

// MARK: - Helpers

/// Runs blocking `body` on a fresh `Thread`; throws `TimedOut` if it does not finish within `timeout`.
private func onThread<T: Sendable>(
    _ name: String, timeout: Duration = .seconds(90), _ body: @escaping @Sendable () throws -> T
) async throws -> T {
    let once = Once<T>()
    return try await withCheckedThrowingContinuation { continuation in
        once.install(continuation)
        let thread = Thread { once.resume(Result { try body() }) }
        thread.name = "transport-test-\(name)"
        thread.start()
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            once.resume(.failure(TimedOut(what: name)))
        }
    }
}

/// A blocking helper thread did not finish in time.
private struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out: \(what)" }
}

/// Resumes a continuation at most once (whichever of result and timeout comes first).
private final class Once<T: Sendable>: @unchecked Sendable {
    // @unchecked: both fields are only touched under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var pending: Result<T, any Error>?

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = lock.withLock {
            if let pending { return pending }
            self.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(_ result: Result<T, any Error>) {
        let target: CheckedContinuation<T, any Error>? = lock.withLock {
            if let continuation {
                self.continuation = nil
                pending = .failure(TimedOut(what: "already resumed"))
                return continuation
            }
            if pending == nil { pending = result }
            return nil
        }
        target?.resume(with: result)
    }
}

/// A one-shot signal from a helper thread to the test, awaited with a timeout.
private final class Gate: @unchecked Sendable {
    // @unchecked: `isOpen` is only touched under `lock`.
    private let lock = NSLock()
    private var isOpen = false

    func open() { lock.withLock { isOpen = true } }

    func wait(timeout: Duration = .seconds(90)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !lock.withLock({ isOpen }) {
            guard clock.now < deadline else { throw TimedOut(what: "gate") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// The transport error `body` threw, or nil (also when it threw something else).
private func caught(_ body: () throws -> Void) -> TransportError? {
    do {
        try body()
        return nil
    } catch {
        return error as? TransportError
    }
}

/// Listens on 127.0.0.1:0 (or uses `listener`) and returns both ends of one connection.
private func connectedPair(
    _ listener: Listener? = nil, to target: Endpoint? = nil
) async throws -> (client: StreamPair, server: StreamPair) {
    let owned = listener == nil ? try Listener(Endpoint(host: "127.0.0.1", port: 0)) : nil
    guard let listener = listener ?? owned else { throw TransportError.closed }
    defer { owned?.close() }
    let endpoint = target ?? listener.endpoint
    async let server = onThread("accept") { try listener.accept() }
    let client = try await onThread("connect") { try Connector.connect(to: endpoint) }
    return (client, try await server)
}

/// Sends one message each way and checks both arrive.
private func expectRoundTrip(_ a: StreamPair, _ b: StreamPair) async throws {
    let ping = Array("ping".utf8)
    let pong = Array("pong!".utf8)
    let atB = try await onThread("ping") { () -> [UInt8]? in
        guard a.output.write(ping, maxLength: ping.count) == ping.count else { return nil }
        return readExactly(b.input, count: ping.count)
    }
    let atA = try await onThread("pong") { () -> [UInt8]? in
        guard b.output.write(pong, maxLength: pong.count) == pong.count else { return nil }
        return readExactly(a.input, count: pong.count)
    }
    #expect(atB == ping)
    #expect(atA == pong)
}

/// Deterministic pseudo-random bytes.
private func pattern(count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
        var offset = 0
        while offset < count {
            var word = generator.next()
            let n = min(8, count - offset)
            withUnsafeBytes(of: &word) { raw.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: n) }
            offset += n
        }
    }
    return bytes
}

/// Writes `bytes` in chunks of pseudo-random sizes (1 byte to 256 KiB); false on a failed write.
private func writeInChunks(_ output: OutputStream, _ bytes: [UInt8], seed: UInt64) -> Bool {
    var generator = SplitMix(seed: seed)
    return bytes.withUnsafeBufferPointer { buffer in
        var offset = 0
        while offset < buffer.count {
            let size = min(buffer.count - offset, Int(generator.next() % (256 << 10)) + 1)
            guard output.write(buffer.baseAddress! + offset, maxLength: size) == size else { return false }
            offset += size
        }
        return true
    }
}

/// Reads exactly `count` bytes; nil if the stream ends or fails first.
private func readExactly(_ input: InputStream, count: Int) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: count)
    return readExactlyInto(input, &bytes, count: count).map { _ in bytes }
}

/// Fills the first `count` bytes of `buffer`; returns them, or nil if the stream ends or fails first.
private func readExactlyInto(_ input: InputStream, _ buffer: inout [UInt8], count: Int) -> [UInt8]? {
    var offset = 0
    let complete = buffer.withUnsafeMutableBufferPointer { pointer -> Bool in
        while offset < count {
            let n = input.read(pointer.baseAddress! + offset, maxLength: count - offset)
            if n <= 0 { return false }
            offset += n
        }
        return true
    }
    return complete ? Array(buffer[0..<count]) : nil
}

/// Reads until end of stream (or an error) and returns everything read.
private func readToEnd(_ input: InputStream) -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 256 << 10)
    while true {
        let n = input.read(&buffer, maxLength: buffer.count)
        if n <= 0 { return result }
        result.append(contentsOf: buffer[0..<n])
    }
}

/// A small deterministic generator (SplitMix64).
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

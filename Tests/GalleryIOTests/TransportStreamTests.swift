import Dispatch
import Foundation
@testable import GalleryIO
import Testing

/// Socket streams: Foundation semantics, end of stream, closing unblocks readers and writers,
/// SIGPIPE, large and fragmented writes, round-trip latency.
extension TransportTests {
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

import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryNode
import GallerySimulation
import GalleryWire
import Testing

extension NodeSuites {
    /// Heartbeats, timeouts and reconnection backoff.
    @Suite("Liveness")
    struct LivenessTests {
        @Test("Backoff doubles from its initial delay up to its cap, with jitter in [d/2, d]")
        func backoffBounds() {
            let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(5))
            var generator = SeededGenerator(seed: 7)
            var seen = Set<Duration>()
            for attempt in 0..<12 {
                let ceiling = min(Duration.milliseconds(100) * (1 << attempt), .seconds(5))
                for _ in 0..<50 {
                    let delay = backoff.delay(attempt: attempt, using: &generator)
                    #expect(delay <= ceiling && delay >= ceiling / 2, "attempt \(attempt): \(delay)")
                    seen.insert(delay)
                }
            }
            #expect(seen.count > 100, "delays are jittered")
            #expect(backoff.delay(attempt: 1_000, using: &generator) <= .seconds(5))
        }

        @Test("An authenticated peer that goes silent is dropped with a timeout error")
        func silentPeerIsDropped() throws {
            let secret = Array("liveness".utf8)
            let node = SyncNode(
                configuration: NodeConfiguration(
                    name: "node", secret: secret, heartbeatInterval: .milliseconds(100),
                    peerTimeout: .milliseconds(600), log: .silent),
                replica: Replica(id: ReplicaID(deriving: "node")))
            try node.start()
            defer { node.stop() }

            // A raw client that completes the handshake, then never sends another byte.
            let streams = try Connector.connect(to: node.endpoint!)
            defer { streams.close() }
            var raw = RawPeer(streams)
            try raw.authenticate(HandshakeSettings(secret: secret, staticKey: X25519.PrivateKey(), replica: ReplicaID(99), name: "mute"))
            let start = ContinuousClock.now
            // Everything the node sends until it closes: its sync request, heartbeats, then the error.
            var received: [Message] = []
            while let message = try raw.receiveOrEnd() { received.append(message) }
            let elapsed = ContinuousClock.now - start
            #expect(received.contains(.heartbeat), "an idle connection gets heartbeats")
            #expect(received.last == .error(code: .timeout, message: received.last.flatMap {
                if case .error(_, let text) = $0 { text } else { nil }
            } ?? ""))
            #expect(elapsed >= .milliseconds(500) && elapsed < .seconds(5), "\(elapsed)")
        }

        @Test("Heartbeats keep two idle nodes connected well past the timeout")
        func heartbeatsKeepIdleConnectionsAlive() throws {
            let cluster = try TestCluster(["a", "b"], peers: [1: [0]], peerTimeout: .milliseconds(400))
            defer { cluster.stop() }
            cluster.expectConvergence()
            #expect(cluster.nodes[1].waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            // Idle for three timeouts: only heartbeats flow, and the connection stays.
            let connected = cluster.nodes[1].peers.map(\.address)
            Thread.sleep(forTimeInterval: 1.2)
            #expect(cluster.nodes[1].peers.map(\.address) == connected)
            #expect(cluster.logged("timeout").isEmpty)
        }
    }
}

/// Frames over raw streams, for tests that play a peer by hand: plain during the handshake, in
/// sealed records after it.
struct RawPeer {
    let streams: StreamPair
    private var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
    private var sealer: RecordSealer?
    private var opener: RecordOpener?
    /// Frames opened from records and not yet returned.
    private var pending: [Frame] = []

    init(_ streams: StreamPair) {
        self.streams = streams
    }

    /// Runs the version 3 handshake as `settings`' node, up to the node's sealed `identity`.
    mutating func authenticate(_ settings: HandshakeSettings) throws {
        var handshake = ClientHandshake(settings: settings)
        for message in try handshake.start() { send(message) }
        guard case .finish(let third, let result) = try handshake.receive(try receive()) else { return }
        send(third)
        sealer = RecordSealer(result.sending)
        opener = RecordOpener(result.receiving, maximumPayload: Int(FrameLimits.maximum))
        send(.identity(settings.info(version: result.version)))
        guard case .identity = try receive() else { throw WireError.unexpected("no identity") }
    }

    mutating func send(_ message: Message) {
        let bytes = message.frame.encoded
        guard var sealer else {
            streams.output.writeAll(bytes)
            return
        }
        if let records = try? sealer.seal(bytes) { streams.output.writeAll(records) }
        self.sealer = sealer
    }

    /// The next message; throws at the end of the stream.
    mutating func receive() throws -> Message {
        guard let message = try receiveOrEnd() else { throw WireError.unexpected("end of stream") }
        return message
    }

    /// The next message, or nil at the end of the stream.
    mutating func receiveOrEnd() throws -> Message? {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            if !pending.isEmpty { return try Message(frame: pending.removeFirst()) }
            if let frame = try decoder.next() {
                if var opener, frame.knownType == .record {
                    pending += try opener.open(frame.payload)
                    self.opener = opener
                    continue
                }
                return try Message(frame: frame)
            }
            let count = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 { return nil }
            decoder.append(Array(buffer[..<count]))
        }
    }
}

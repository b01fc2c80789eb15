import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryNode
import GalleryWire

/// The `handshake` workload of `gallery-bench sync`: how long a dialer takes to reach an
/// authenticated, sealed channel with a real node on loopback.
///
/// Each of `count` rounds opens a TCP connection to node A, sends `hello` and Noise message 1,
/// reads message 2, sends message 3, and reads A's first sealed `record`, which it opens: A has
/// then proved the secret and its key, and checked the dialer's. The time runs from before the
/// connect to the opened record (TCP connect, one round trip of the handshake, the four X25519
/// operations on each side, A's first sealed frames).
enum HandshakeBenchmark {
    static let count = 200

    static func run(secret: [UInt8]) throws -> String {
        let node = SyncNode(
            configuration: NodeConfiguration(name: "handshake-a", secret: secret, log: .silent),
            replica: Replica(id: ReplicaID(deriving: "handshake-a")))
        try node.start()
        defer { node.stop() }
        guard let endpoint = node.endpoint else { throw BenchFailure.failed("handshake: node A has no address") }
        let settings = HandshakeSettings(
            secret: secret, staticKey: X25519.PrivateKey(), replica: ReplicaID(deriving: "handshake-b"), name: "handshake-b")
        var samples: [Double] = []
        for _ in 0..<count {
            let started = DispatchTime.now().uptimeNanoseconds
            try handshake(with: endpoint, settings: settings)
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000)
        }
        samples.sort()
        let mean = samples.reduce(0, +) / Double(samples.count)
        return String(
            format: "{\"workload\": \"handshake\", \"rounds\": %d, \"p50Microseconds\": %.1f, \"p99Microseconds\": %.1f, "
                + "\"meanMicroseconds\": %.1f, \"maxMicroseconds\": %.1f}",
            count, samples[count / 2], samples[count * 99 / 100], mean, samples[count - 1])
    }

    /// One handshake with the node at `endpoint`, up to its first sealed record, opened.
    private static func handshake(with endpoint: Endpoint, settings: HandshakeSettings) throws {
        let streams = try Connector.connect(to: endpoint, timeout: .seconds(5))
        defer { streams.close() }
        var client = ClientHandshake(settings: settings)
        var decoder = FrameDecoder()
        streams.output.writeAll(try client.start().flatMap(\.frame.encoded))
        let second = try nextFrame(&decoder, from: streams)
        guard case .finish(let third, var result) = try client.receive(Message(frame: second)) else {
            throw BenchFailure.failed("handshake: no Noise message 2")
        }
        streams.output.writeAll(third.frame.encoded)
        guard case .record(let sealed) = try Message(frame: try nextFrame(&decoder, from: streams)) else {
            throw BenchFailure.failed("handshake: node A sent no record")
        }
        _ = try result.receiving.decrypt(sealed, authenticating: [])
    }

    /// The next frame on `streams`; fails at the end of the stream.
    private static func nextFrame(_ decoder: inout FrameDecoder, from streams: StreamPair) throws -> Frame {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            if let frame = try decoder.next() { return frame }
            let read = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
            guard read > 0 else { throw BenchFailure.failed("handshake: node A closed the connection") }
            decoder.append(Array(buffer[..<read]))
        }
    }
}

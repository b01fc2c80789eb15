import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryNode
import GallerySimulation
import GalleryWire
import Synchronization

/// `gallery-bench flood [--seconds 20] [--attackers 2]`: a node under a bounded flood of hostile
/// connections on loopback while a real peer keeps sending it ops.
///
/// Node A serves peer B (which dials it). Attacker threads open connection after connection to A,
/// each doing one of: connect and close; random garbage; a 2 GiB frame header; a hello then an
/// auth with a wrong proof; a replay of an honest client's recorded hello and auth; a `fetch` and a
/// `control_request` before any handshake. Every attempt must end with A closing the connection,
/// having sent nothing but `welcome` and `error` frames. Meanwhile B makes an op every 10 ms and
/// the time until A applies it is recorded. At the end A must hold exactly A's and B's ops.
enum FloodBenchmark {
    /// The kinds of hostile connection, tried in turn.
    enum Attack: String, CaseIterable {
        case connectAndClose, garbage, hugeHeader, wrongSecret, replayedAuth, fetchBeforeAuth, controlBeforeAuth
    }

    static func run(_ arguments: [String]) throws -> [String] {
        var seconds = 20.0
        var attackers = 2
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst().flatMap(Double.init), value > 0 else {
                throw BenchFailure.usage("flood: \(flag) needs a positive number")
            }
            switch flag {
            case "--seconds": seconds = value
            case "--attackers": attackers = Int(value)
            default: throw BenchFailure.usage("flood: unknown option \(flag)")
            }
        }
        let secret = Array("flood benchmark secret".utf8)
        func configuration(_ name: String) -> NodeConfiguration {
            NodeConfiguration(name: name, secret: secret, log: NodeLog { _ in })
        }
        let a = SyncNode(configuration: configuration("a"), replica: Replica(id: ReplicaID(deriving: "flood a")))
        let b = SyncNode(configuration: configuration("b"), replica: Replica(id: ReplicaID(deriving: "flood b")))
        guard let endpoint = try a.start() else { throw BenchFailure.failed("flood: A does not listen") }
        try b.start()
        defer {
            b.stop()
            a.stop()
        }
        try a.perform { try $0.createGallery("a") }
        try b.perform { try $0.createGallery("b") }
        b.keepConnected(to: endpoint)
        guard b.waitForPeers(timeout: .seconds(20), until: { $0.contains { $0.state == .live } }) else {
            throw BenchFailure.failed("flood: B did not connect to A")
        }
        let recorded = try recordHonestHandshake(to: endpoint, secret: secret)
        let descriptorsBefore = openDescriptors()

        let stop = Atomic<Bool>(false)
        let counts = Mutex<[Attack: Int]>([:])
        let violations = Mutex<[String]>([])
        let done = DispatchGroup()
        for index in 0..<attackers {
            done.enter()
            Thread.detachNewThread {
                var turn = index
                while !stop.load(ordering: .relaxed) {
                    let attack = Attack.allCases[turn % Attack.allCases.count]
                    turn += 1
                    if let problem = attempt(attack, endpoint: endpoint, recorded: recorded, seed: UInt64(turn)) {
                        violations.withLock { $0.append("\(attack.rawValue): \(problem)") }
                    }
                    counts.withLock { $0[attack, default: 0] += 1 }
                }
                done.leave()
            }
        }
        // B's ops during the flood: the time from B's command to A applying it.
        var latencies: [Double] = []
        var lost = 0
        let deadline = Date().addingTimeInterval(seconds)
        var index = 0
        while Date() < deadline {
            let started = DispatchTime.now().uptimeNanoseconds
            let op = try b.perform { try $0.insert([.titled("b\(index)")], into: "b", at: 0) }
            if a.wait(timeout: .seconds(10), until: { $0.contains(op.id) }) {
                latencies.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
            } else {
                lost += 1
            }
            index += 1
            Thread.sleep(forTimeInterval: 0.01)
        }
        stop.store(true, ordering: .relaxed)
        done.wait()
        // Nothing but A's and B's ops reached A's replica.
        let replicas = Set(a.read { $0.version }.counters.keys)
        if replicas != [a.read { $0.id }, b.read { $0.id }] {
            violations.withLock { $0.append("A's version vector names other replicas: \(replicas)") }
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        let byKind = counts.withLock { $0 }
        let total = byKind.values.reduce(0, +)
        let problems = violations.withLock { $0 }
        for problem in problems.prefix(10) { writeLine("flood violation: \(problem)", to: .standardError) }
        let kinds = Attack.allCases.map { "\"\($0.rawValue)\": \(byKind[$0] ?? 0)" }.joined(separator: ", ")
        return [
            "{\"workload\": \"flood\", \"seconds\": \(seconds), \"attackers\": \(attackers), \"hostileConnections\": \(total), "
                + "\"perSecond\": \(Int(Double(total) / seconds)), \(kinds), \"violations\": \(problems.count), "
                + "\"peerOps\": \(index), \"peerOpsLost\": \(lost), "
                + String(format: "\"peerOpLatencyP50Ms\": %.2f, \"peerOpLatencyP99Ms\": %.2f, \"peerOpLatencyMaxMs\": %.2f, ",
                         percentile(0.5), percentile(0.99), latencies.last ?? 0)
                + "\"peersOfAAfter\": \(a.peers.count), \"descriptorsBefore\": \(descriptorsBefore), \"descriptorsAfter\": \(openDescriptors())}",
        ]
    }

    /// The bytes of an honest client's opening (`hello` and Noise message 1) and its message 3,
    /// from a real handshake with A.
    private static func recordHonestHandshake(to endpoint: Endpoint, secret: [UInt8]) throws -> (hello: [UInt8], auth: [UInt8]) {
        let streams = try Connector.connect(to: endpoint)
        defer { streams.close() }
        var handshake = ClientHandshake(settings: HandshakeSettings(
            secret: secret, staticKey: X25519.PrivateKey(), replica: ReplicaID(deriving: "honest"), name: "honest"))
        guard let opening = try? handshake.start() else { throw BenchFailure.failed("flood: the honest handshake failed") }
        let hello = opening.flatMap(\.frame.encoded)
        streams.output.writeAll(hello)
        var decoder = FrameDecoder()
        guard let second = read(&decoder, from: streams, until: 1).first,
              case .finish(let third, _)? = try? handshake.receive(Message(frame: second)) else {
            throw BenchFailure.failed("flood: the honest handshake failed")
        }
        return (hello, third.frame.encoded)
    }

    /// One hostile connection; nil when A behaved (closed it having sent only handshake messages and `error`).
    private static func attempt(_ attack: Attack, endpoint: Endpoint, recorded: (hello: [UInt8], auth: [UInt8]), seed: UInt64) -> String? {
        guard let streams = try? Connector.connect(to: endpoint, timeout: .seconds(5)) else { return "cannot connect" }
        defer { streams.close() }
        // A node that does not close in time: the watchdog ends the blocked read.
        let watchdog = DispatchWorkItem { streams.close() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 8, execute: watchdog)
        defer { watchdog.cancel() }
        var generator = SeededGenerator(seed: seed)
        var mallory = ClientHandshake(settings: HandshakeSettings(
            secret: Array("not the secret".utf8), staticKey: X25519.PrivateKey(), replica: ReplicaID(UInt64.random(in: 1...UInt64.max)),
            name: "mallory"))
        let wrongHello = ((try? mallory.start()) ?? []).flatMap(\.frame.encoded)
        var decoder = FrameDecoder()
        switch attack {
        case .connectAndClose:
            return nil
        case .garbage:
            streams.output.writeAll((0..<Int.random(in: 16...4_096, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        case .hugeHeader:
            streams.output.writeAll([0x00, 0x00, 0x00, 0x80, FrameType.ops.rawValue, 0x00])
        case .wrongSecret:
            streams.output.writeAll(wrongHello)
            // Closed without a frame: refused at accept (over the unauthenticated caps), which is behaving.
            guard let first = read(&decoder, from: streams, until: 1).first else { return nil }
            guard first.knownType == .noiseHandshake, case .finish(let third, _)? = try? mallory.receive(Message(frame: first)) else {
                return "no Noise message 2"
            }
            streams.output.writeAll(third.frame.encoded)
        case .replayedAuth:
            streams.output.writeAll(recorded.hello)
            guard let first = read(&decoder, from: streams, until: 1).first else { return nil }
            guard first.knownType == .noiseHandshake else { return "no Noise message 2" }
            streams.output.writeAll(recorded.auth)
        case .fetchBeforeAuth:
            streams.output.writeAll(Message.fetch(FetchRequest(id: 1, hash: Array(repeating: 1, count: 32), offset: 0, length: 0)).frame.encoded)
        case .controlBeforeAuth:
            streams.output.writeAll(Message.controlRequest(Array(#"{"id":1,"command":"galleries"}"#.utf8)).frame.encoded)
        }
        let frames = read(&decoder, from: streams)
        if let other = frames.first(where: { $0.knownType != .noiseHandshake && $0.knownType != .error }) {
            return "got a \(other.knownType.map { "\($0)" } ?? "type \(other.type)") frame"
        }
        return nil
    }

    /// Frames read until the peer closes (or `count` frames arrived); a malformed stream ends it.
    private static func read(_ decoder: inout FrameDecoder, from streams: StreamPair, until count: Int = .max) -> [Frame] {
        var frames: [Frame] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while frames.count < count {
            while frames.count < count, let frame = try? decoder.next() { frames.append(frame) }
            if frames.count >= count { break }
            let read = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
            if read <= 0 { break }
            decoder.append(Array(buffer[..<read]))
        }
        return frames
    }

    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}

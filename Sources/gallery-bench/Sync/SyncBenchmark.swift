import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GallerySimulation
import Synchronization

/// `gallery-bench sync`: catch-up time and bytes, and live op latency, between two nodes on loopback;
/// and the handshake's time (`HandshakeBenchmark`).
enum SyncBenchmark {
    private static let secret = Array("benchmark secret".utf8)

    /// Runs both workloads and returns their JSON lines.
    static func run() throws -> [String] {
        [try catchUp(), try catchUp(signed: true), try liveLatency(), try HandshakeBenchmark.run(secret: secret)]
    }

    /// `gallery-bench sync catch-up [--rounds N] [--only signed|unsigned]`: the catch-ups of `sync`
    /// alone, unsigned then signed, `N` times alternately (a figure and its reference measured in
    /// the same minutes), or one of them (for a profiler).
    static func runCatchUps(_ arguments: [String]) throws -> [String] {
        var rounds = 1
        var kinds = [false, true]
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            let value = rest.popFirst()
            switch (flag, value) {
            case ("--rounds", let value?):
                guard let number = Int(value), number > 0 else { throw BenchFailure.usage("--rounds needs a positive whole number") }
                rounds = min(number, 100)
            case ("--only", "signed"): kinds = [true]
            case ("--only", "unsigned"): kinds = [false]
            default: throw BenchFailure.usage("sync catch-up takes --rounds N and --only signed|unsigned")
            }
        }
        var lines: [String] = []
        for _ in 0..<rounds {
            for signed in kinds { lines.append(try catchUp(signed: signed)) }
        }
        return lines
    }

    /// A node; `signed`: it signs its ops and checks its peers' (protocol.md 7.3).
    private static func node(_ name: String, signed: Bool = false) throws -> SyncNode {
        var configuration = NodeConfiguration(name: name, secret: secret, log: .silent)
        let replica: Replica
        if signed {
            configuration.replicaSalt = 1
            replica = Replica.signed(for: configuration)
        } else {
            replica = Replica(id: ReplicaID(deriving: name))
        }
        let node = SyncNode(configuration: configuration, replica: replica)
        try node.start()
        return node
    }

    /// Replica A holds 100,000 ops (50,000 inserts, 50,000 moves); B is empty. Time from B's connect
    /// to B having applied all of them, after A's `caught_up`.
    private static func catchUp(signed: Bool = false) throws -> String {
        let source = try node("catch-up-source", signed: signed)
        let sink = try node("catch-up-sink", signed: signed)
        defer {
            sink.stop()
            source.stop()
        }
        var random = SeededGenerator(seed: 42)
        let target = try source.perform { replica -> VersionVector in
            try replica.createGallery("g")
            for index in 0..<50_000 {
                try replica.insert([.titled("img\(index)")], into: "g", at: Int.random(in: 0...index, using: &random))
            }
            let ids = try replica.items(in: "g").map(\.id)
            for _ in 0..<49_999 {
                try replica.move(ids.randomElement(using: &random)!, to: "g", at: Int.random(in: 0..<50_000, using: &random))
            }
            return replica.version
        }
        let ops = source.read { $0.opCount }
        let clock = ContinuousClock()
        let start = clock.now
        // CPU time of both nodes (one process): what the catch-up costs, whatever the machine's load.
        let cpuStart = ThumbsBenchmark.processCPU()
        try sink.connect(to: source.endpoint!)
        guard sink.wait(timeout: .seconds(60), until: { $0.version.includes(target) }) else {
            throw BenchFailure.failed("catch-up: the sink did not catch up in 60 s")
        }
        let elapsed = clock.now - start
        let cpuSeconds = ThumbsBenchmark.processCPU() - cpuStart
        let wireBytes = sink.peers.first?.bytesReceived ?? 0
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return """
            {"workload": "\(signed ? "catch-up-signed" : "catch-up")", "ops": \(ops), "seconds": \(rounded(seconds)), \
            "cpuSeconds": \(rounded(cpuSeconds)), "opsPerSecond": \(Int(Double(ops) / seconds)), "wireBytes": \(wireBytes), \
            "bytesPerOp": \(rounded(Double(wireBytes) / Double(ops))), "loadAverage": \(LoadBenchmark.loadAverage())}
            """
    }

    /// 10,000 ops made on A one after the other, each timed until B has applied it.
    private static func liveLatency() throws -> String {
        let a = try node("latency-a")
        let b = try node("latency-b")
        defer {
            b.stop()
            a.stop()
        }
        try a.perform { try $0.createGallery("g") }
        try b.connect(to: a.endpoint!)
        guard b.wait(timeout: .seconds(10), until: { $0.hasGallery("g") }) else {
            throw BenchFailure.failed("live latency: the nodes did not connect")
        }
        let arrivals = ArrivalLog()
        b.observe { ops in arrivals.record(ops) }
        var samples: [Double] = []
        let count = 10_000
        samples.reserveCapacity(count)
        for index in 0..<count {
            let sent = DispatchTime.now().uptimeNanoseconds
            let op = try a.perform { try $0.insert([.titled("live\(index)")], into: "g", at: 0) }
            // The observer hears of the op after the replica holds it (events are delivered off the
            // node's loop): wait for the observer's record, not only for the replica.
            guard b.wait(timeout: .seconds(5), until: { $0.contains(op.id) }), let arrived = arrivals.wait(for: op.id) else {
                throw BenchFailure.failed("live latency: op \(op.id) did not arrive")
            }
            samples.append(Double(arrived - sent) / 1_000)
        }
        samples.sort()
        let mean = samples.reduce(0, +) / Double(samples.count)
        return """
            {"workload": "live-latency", "ops": \(count), "p50Microseconds": \(rounded(samples[count / 2])), \
            "p99Microseconds": \(rounded(samples[count * 99 / 100])), "meanMicroseconds": \(rounded(mean))}
            """
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 1_000).rounded() / 1_000
    }
}

/// When each op was applied on the receiving node, recorded by its observer.
private final class ArrivalLog: Sendable {
    private let times = ConditionLock<[OpID: UInt64]>([:])

    func record(_ ops: [Op]) {
        let now = DispatchTime.now().uptimeNanoseconds
        times.withLock { times in
            for op in ops { times[op.id] = now }
        }
        times.broadcast()
    }

    /// When the observer saw the op, waiting up to `timeout` for it: observers run on a thread of
    /// their own (`NodeEvents`), so they may see an op a moment after the replica holds it.
    func time(of id: OpID, timeout: TimeInterval = 5) -> UInt64? {
        let deadline = Date().addingTimeInterval(timeout)
        return times.withLock(waitingUntil: deadline) { $0[id] }
    }

    /// The time of `id`, waiting up to 5 s for the observer to record it.
    func wait(for id: OpID) -> UInt64? {
        let deadline = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if let time = time(of: id) { return time }
            sched_yield()
        }
        return nil
    }
}

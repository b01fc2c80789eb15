import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import Synchronization

/// `gallery-bench catchup`: a new, empty node joins a full mesh of editing nodes whose space holds
/// `--ops` ops, while they keep editing at `--rate` ops/s each: how long until the new node holds
/// everything the mesh held when it joined, and the editors' op latency (p99) meanwhile and overall.
/// In-memory `SyncNode`s in this process on 127.0.0.1 (the history is given to each editor's replica
/// before it starts; nothing is stored on disk).
enum CatchUpLoadBenchmark {
    struct Options {
        var ops = 1_000_000
        var nodes = 7
        var rate = 500
        /// Editing before the new node joins, and after it is caught up.
        var settleSeconds = 3.0
        var clients = 4
        /// Every node signs and checks ops (protocol.md 7.3); the history is signed by its author.
        var signed = false

        init(_ arguments: [String]) throws {
            var rest = arguments[...]
            while let flag = rest.popFirst() {
                if flag == "--signed" {
                    signed = true
                    continue
                }
                guard let value = rest.popFirst(), let number = Int(value), number > 0 else {
                    throw BenchFailure.usage("\(flag) needs a positive whole number")
                }
                switch flag {
                case "--ops": ops = min(number, 20_000_000)
                case "--nodes": nodes = min(max(number, 2), 32)
                case "--rate": rate = min(number, 100_000)
                case "--settle": settleSeconds = Double(min(number, 600))
                case "--clients": clients = min(number, 64)
                default: throw BenchFailure.usage("unknown option \(flag) for catchup")
                }
            }
        }
    }

    static func run(_ arguments: [String]) throws -> [String] {
        let options = try Options(arguments)
        let setupStarted = uptimeNanoseconds()
        let secret = Array("catch-up benchmark secret".utf8)
        /// A node's configuration, signing when `--signed` (a salt per node), and its empty replica.
        func node(_ name: String, peers: [Endpoint], salt: UInt64) -> (NodeConfiguration, Replica) {
            var configuration = NodeConfiguration(name: name, secret: secret, peers: peers, log: .silent)
            guard options.signed else { return (configuration, Replica(id: ReplicaID(deriving: "catchup-\(name)"))) }
            configuration.replicaSalt = salt
            return (configuration, Replica.signed(for: configuration))
        }
        var history = node("history", peers: [], salt: 1_000).1
        try history.createGallery("history")
        for index in 0..<(options.ops - 1) { try history.insert([.titled("h\(index)")], into: "history", at: index) }
        let ops = history.ops
        let historyBytes = history.encodedLogSize
        let names = (0..<options.nodes).map { "n\($0)" }
        var nodes: [SyncNode] = []
        var addresses: [Endpoint] = []
        defer { for node in nodes { node.stop() } }
        for (index, name) in names.enumerated() {
            var (configuration, replica) = node(name, peers: addresses, salt: UInt64(index + 1))
            // The history as the editor's own files hold it (taken as it is, signatures included).
            let authenticator = replica.authenticator
            replica.authenticator = nil
            for op in ops { _ = replica.receive(op) }
            replica.authenticator = authenticator
            configuration.peers = addresses
            let node = SyncNode(configuration: configuration, replica: replica)
            guard let address = try node.start() else { throw BenchFailure.failed("catchup: \(name) has no address") }
            try node.perform { try $0.createGallery(name) }
            addresses.append(address)
            nodes.append(node)
        }
        try nodes[0].perform { try $0.createGallery(LoadMesh.sharedGallery) }
        for node in nodes {
            let meshed = node.waitForPeers(timeout: .seconds(60)) { $0.filter { $0.state == .live }.count >= options.nodes - 1 }
            guard meshed, node.wait(timeout: .seconds(60), until: { replica in (names + [LoadMesh.sharedGallery]).allSatisfy(replica.hasGallery) }) else {
                throw BenchFailure.failed("catchup: the \(options.nodes) editors did not form a mesh in 60 s")
            }
        }
        let setupSeconds = Double(uptimeNanoseconds() - setupStarted) / 1e9

        let recorders = nodes.map { node in NodeRecorder(own: node.read { $0.id }) }
        for (node, recorder) in zip(nodes, recorders) { node.observe { recorder.record($0) } }
        // The editors run until `stop`; the new node joins after `settle` seconds.
        let interval = UInt64(1e9 / Double(options.rate))
        let start = uptimeNanoseconds() + 20_000_000
        let horizon = 600
        let results = PacerResults(count: options.nodes)
        let group = DispatchGroup()
        let stopFlag = StopFlag()
        for index in nodes.indices {
            for client in 0..<options.clients {
                group.enter()
                let pacer = Pacer(node: nodes[index], index: index, names: names, seed: UInt64(index * 64 + client + 1))
                Thread.detachNewThread {
                    results.add(index, pacer.run(
                        start: start + UInt64(client) * interval, interval: interval * UInt64(options.clients),
                        slots: options.rate * horizon / options.clients, sequenceOffset: client, sequenceStride: options.clients,
                        until: { stopFlag.isSet }))
                    group.leave()
                }
            }
        }
        Thread.sleep(forTimeInterval: options.settleSeconds)

        let (newcomerConfiguration, newcomerReplica) = node("newcomer", peers: addresses, salt: 999)
        let newcomer = SyncNode(configuration: newcomerConfiguration, replica: newcomerReplica)
        let (target, opsAtJoin) = nodes[0].read { ($0.version, $0.opCount) }
        let joined = uptimeNanoseconds()
        try newcomer.start()
        defer { newcomer.stop() }
        guard newcomer.wait(timeout: .seconds(600), until: { $0.version.includes(target) }) else {
            throw BenchFailure.failed("catchup: the new node did not catch up in 600 s")
        }
        let caughtUp = uptimeNanoseconds()
        let countsAtCaughtUp = newcomer.relayCounts
        Thread.sleep(forTimeInterval: options.settleSeconds)
        stopFlag.set()
        group.wait()
        let stopped = uptimeNanoseconds()
        let all = nodes + [newcomer]
        var converged = false
        for _ in 0..<3_000 {
            let versions = all.map { $0.read { $0.version } }
            if versions.allSatisfy({ $0 == versions[0] }) {
                converged = true
                break
            }
            usleep(10_000)
        }
        guard converged else { throw BenchFailure.failed("catchup: the mesh and the new node did not converge after the load") }
        let convergedAfter = Double(uptimeNanoseconds() - stopped) / 1e9

        var created: [OpID: UInt64] = [:]
        let pacers = results.all
        for pacer in pacers { for (id, time) in pacer.created { created[id] = time } }
        var during: [UInt32] = []
        var overall: [UInt32] = []
        for recorder in recorders {
            for (id, time) in recorder.arrivals {
                guard let made = created[id] else { continue }
                let micros = UInt32(min((time &- made) / 1_000, UInt64(UInt32.max)))
                overall.append(micros)
                if made >= joined && made <= caughtUp { during.append(micros) }
            }
        }
        during.sort()
        overall.sort()
        func p99(_ sorted: [UInt32]) -> Double {
            sorted.isEmpty ? 0 : LoadBenchmark.rounded(Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]) / 1_000)
        }
        let counts = newcomer.relayCounts
        let newcomerBytes = newcomer.peers.map(\.bytesReceived).reduce(0, +)
        return [
            """
            {"workload": "catchup-under-load", "historyOps": \(options.ops), "historyBytes": \(historyBytes), \
            "editors": \(options.nodes), "ratePerEditor": \(options.rate), "setupSeconds": \(LoadBenchmark.rounded(setupSeconds)), \
            "opsHeldAtJoin": \(opsAtJoin), \
            "caughtUpSeconds": \(LoadBenchmark.rounded(Double(caughtUp - joined) / 1e9)), \
            "newcomerOpsReceived": \(counts.opsReceived), "newcomerDuplicates": \(counts.duplicatesReceived), \
            "newcomerDuplicatesUntilCaughtUp": \(countsAtCaughtUp.duplicatesReceived), \
            "newcomerPrunesSent": \(counts.prunesSent), "newcomerGraftsSent": \(counts.graftsSent), \
            "newcomerWireBytes": \(newcomerBytes), \
            "opsMadeByEditors": \(pacers.map(\.made).reduce(0, +)), "slotsSkipped": \(pacers.map(\.skipped).reduce(0, +)), \
            "editorLatencyP99MsDuringCatchUp": \(p99(during)), "samplesDuringCatchUp": \(during.count), \
            "editorLatencyP99MsOverall": \(p99(overall)), "convergedSecondsAfterStop": \(LoadBenchmark.rounded(convergedAfter)), \
            "loadAverage": \(LoadBenchmark.loadAverage())}
            """,
        ]
    }
}

/// A flag one thread sets and others poll.
final class StopFlag: Sendable {
    private let value = Atomic(false)

    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

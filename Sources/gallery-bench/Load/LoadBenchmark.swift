import Foundation
import GalleryHost
import GalleryModel
import GalleryNode
import GallerySimulation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `gallery-bench load`: nodes in a full mesh on 127.0.0.1, each making ops at a fixed rate, paced
/// by a timer, for a fixed time; then the time until all converge, the op propagation latency,
/// throughput, fsyncs and memory.
enum LoadBenchmark {
    struct Options {
        var nodes = 8
        var rate = 500
        var seconds = 60.0
        var store = LoadMesh.Store.disk
        var seed: UInt64 = 1
        /// Commands in flight per node: each node's rate is shared by this many pacer threads.
        var clients = 8
        /// In-memory nodes without relay trees (every op to every peer): the baseline.
        var flood = false
        /// `NodeConfiguration.relayHold` in milliseconds; nil keeps the default.
        var relayHold: Int?
        /// Ops in `ops` frames only (`NodeConfiguration.compactOps` off): the baseline of `ops_compact`.
        var plainOps = false
        /// Disk nodes keep their op log once (no `oplog.mirror`): the baseline of the mirror.
        var noMirror = false
        /// Disk nodes that neither sign nor check ops: the baseline of signed ops (protocol.md 7.3).
        var unsigned = false

        init(_ arguments: [String]) throws {
            var rest = arguments[...]
            while let flag = rest.popFirst() {
                if flag == "--flood" {
                    flood = true
                    continue
                }
                if flag == "--plain-ops" {
                    plainOps = true
                    continue
                }
                if flag == "--no-mirror" {
                    noMirror = true
                    continue
                }
                if flag == "--unsigned" {
                    unsigned = true
                    continue
                }
                guard let value = rest.popFirst() else { throw BenchFailure.usage("\(flag) needs a value") }
                switch flag {
                case "--nodes": nodes = try Self.number(value, flag, in: 2...64)
                case "--rate": rate = try Self.number(value, flag, in: 1...100_000)
                case "--seconds": seconds = Double(try Self.number(value, flag, in: 1...3_600))
                case "--seed": seed = UInt64(try Self.number(value, flag, in: 0...Int.max))
                case "--clients": clients = try Self.number(value, flag, in: 1...64)
                case "--relay-hold": relayHold = try Self.number(value, flag, in: 0...1_000)
                case "--store":
                    guard let store = LoadMesh.Store(rawValue: value) else { throw BenchFailure.usage("--store is disk or memory") }
                    self.store = store
                default: throw BenchFailure.usage("unknown option \(flag) for load")
                }
            }
        }

        private static func number(_ text: String, _ flag: String, in range: ClosedRange<Int>) throws -> Int {
            guard let value = Int(text), range.contains(value) else {
                throw BenchFailure.usage("\(flag) takes a whole number in \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }
    }

    static func run(_ arguments: [String]) throws -> [String] {
        let options = try Options(arguments)
        // As `gallery serve` does at start, before the nodes' threads exist.
        MallocArenas.limit()
        let loadBefore = loadAverage()
        let fsyncMilliseconds = options.store == .disk ? try fsyncProbe() : nil
        let rssBefore = MemoryUsage.currentResidentBytes()
        guard !options.flood || options.store == .memory else { throw BenchFailure.usage("--flood needs --store memory") }
        let mesh = try LoadMesh(count: options.nodes, store: options.store, flood: options.flood, relayHold: options.relayHold,
                                plainOps: options.plainOps, mirrorsOpLog: !options.noMirror, unsigned: options.unsigned)
        defer { mesh.stop() }
        let rssMeshed = MemoryUsage.currentResidentBytes()

        let recorders = mesh.nodes.map { node in NodeRecorder(own: node.read { $0.id }) }
        for (node, recorder) in zip(mesh.nodes, recorders) {
            node.observe { ops in recorder.record(ops) }
        }
        let fsyncsBefore = mesh.fsyncCounts
        let cpuBefore = processCPUSeconds()

        // The load: `clients` pacer threads per node, sharing its rate (client j makes slots
        // j, j + clients, ...): commands in flight at once, as from several users, so that a node's
        // rate is not bounded by one command's wait for its fsync.
        let interval = UInt64(1e9 / Double(options.rate))
        let slots = Int(Double(options.rate) * options.seconds)
        let start = uptimeNanoseconds() + 20_000_000
        let results = PacerResults(count: options.nodes)
        let group = DispatchGroup()
        for index in mesh.nodes.indices {
            for client in 0..<options.clients {
                group.enter()
                let pacer = Pacer(
                    node: mesh.nodes[index], index: index, names: mesh.names,
                    seed: options.seed &* 1_000_003 &+ UInt64(index * 64 + client))
                let clientSlots = slots / options.clients + (client < slots % options.clients ? 1 : 0)
                Thread.detachNewThread {
                    results.add(index, pacer.run(
                        start: start + UInt64(client) * interval, interval: interval * UInt64(options.clients),
                        slots: clientSlots, sequenceOffset: client, sequenceStride: options.clients))
                    group.leave()
                }
            }
        }
        group.wait()
        let stopped = uptimeNanoseconds()
        let loadSeconds = Double(stopped - start) / 1e9
        let appliedAtStop = recorders.map(\.applied)
        let wireBytesAtStop = mesh.nodes.map { $0.peers.map(\.bytesReceived).reduce(0, +) }.reduce(0, +)
        let fsyncsAtStop = mesh.fsyncCounts
        let cpuAtStop = processCPUSeconds()
        let loadDuring = loadAverage()

        // Convergence: identical version vectors, then identical galleries.
        var converged: UInt64?
        let deadline = stopped + 600_000_000_000
        while uptimeNanoseconds() < deadline {
            let versions = mesh.nodes.map { $0.read { $0.version } }
            if versions.allSatisfy({ $0 == versions[0] }) {
                converged = uptimeNanoseconds()
                break
            }
            usleep(2_000)
        }
        guard let converged else {
            let versions = mesh.nodes.map { $0.read { "\($0.version)" } }
            throw BenchFailure.failed("load: the nodes did not converge in 600 s after the load: \(versions)")
        }
        let convergenceSeconds = Double(converged - stopped) / 1e9
        // Before the galleries are listed for the check below: their copies are the harness's.
        let rssAfter = MemoryUsage.currentResidentBytes()
        // The same with malloc's free pages returned: what the nodes (and the harness) hold live.
        MemoryUsage.releaseFreeHeap()
        let rssAfterTrim = MemoryUsage.currentResidentBytes()
        let galleries = mesh.nodes[0].read { $0.galleries }
        let reference = try mesh.nodes[0].read { replica in try galleries.map { try replica.items(in: $0) } }
        for (index, node) in mesh.nodes.enumerated().dropFirst() {
            let listing = try node.read { replica in try replica.galleries == galleries ? galleries.map { try replica.items(in: $0) } : [] }
            guard listing == reference else {
                throw BenchFailure.failed("load: node \(mesh.names[index]) has the same version vector as n0 but different galleries")
            }
        }
        let peakRSS = MemoryUsage.peakResidentBytes()

        let pacers = results.all
        let made = pacers.map(\.made).reduce(0, +)
        var created: [OpID: UInt64] = Dictionary(minimumCapacity: made)
        for pacer in pacers {
            for (id, time) in pacer.created { created[id] = time }
        }
        var latencies: [UInt32] = []
        latencies.reserveCapacity(made * (options.nodes - 1))
        var arrivalCount = 0
        for recorder in recorders {
            let arrivals = recorder.arrivals
            arrivalCount += arrivals.count
            for (id, time) in arrivals {
                guard let start = created[id] else { continue }
                latencies.append(UInt32(min((time &- start) / 1_000, UInt64(UInt32.max))))
            }
        }
        latencies.sort()
        let expectedSamples = made * (options.nodes - 1)
        guard latencies.count == expectedSamples else {
            throw BenchFailure.failed("load: \(latencies.count) latency samples, expected \(expectedSamples)")
        }
        var perform = pacers.flatMap(\.performMicroseconds)
        perform.sort()
        let madePerNode = pacers.map { Double($0.made) / loadSeconds }.sorted()
        let appliedPerNode = appliedAtStop.map { Double($0) / loadSeconds }.sorted()
        let fsyncs = zip(fsyncsAtStop, fsyncsBefore).map { Double($0 - $1) / loadSeconds }.sorted()
        var mix: [String: Int] = [:]
        for pacer in pacers { mix.merge(pacer.mix, uniquingKeysWith: +) }
        let items = try mesh.nodes[0].read { replica in try galleries.map { try replica.count(in: $0) }.reduce(0, +) }
        let opCount = mesh.nodes[0].read { $0.opCount }
        let logBytes = mesh.nodes[0].read { $0.encodedLogSize }
        let fileBytes = mesh.opLogFileBytes

        func ms(_ microseconds: UInt32) -> Double { rounded(Double(microseconds) / 1_000) }
        func percentile(_ sorted: [UInt32], _ fraction: Double) -> UInt32 {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
        }
        func range(_ sorted: [Double]) -> String {
            "[\(rounded(sorted.first ?? 0)), \(rounded(sorted[sorted.count / 2])), \(rounded(sorted.last ?? 0))]"
        }
        let mixText = mix.keys.sorted().map { "\"\($0)\": \(mix[$0]!)" }.joined(separator: ", ")
        let rssGrowth = (rssAfter ?? 0) - (rssBefore ?? 0)
        return [
            """
            {"workload": "load", "store": "\(options.store.rawValue)", "relay": "\(options.flood ? "flood" : "trees")", "nodes": \(options.nodes), \
            "targetOpsPerSecondPerNode": \(options.rate), "clientsPerNode": \(options.clients), "seconds": \(rounded(loadSeconds)), \
            "loadAverageBefore": \(loadBefore), "loadAverageAtStop": \(loadDuring), \
            "opsMade": \(made), "opsMadePerSecond": \(rounded(Double(made) / loadSeconds)), \
            "opsMadePerSecondPerNodeMinMedianMax": \(range(madePerNode)), \
            "slotsSkipped": \(pacers.map(\.skipped).reduce(0, +)), "commandsFailed": \(pacers.map(\.failed).reduce(0, +)), \
            "mix": {\(mixText)}, \
            "appliedPerSecondAcrossMesh": \(rounded(Double(appliedAtStop.reduce(0, +)) / loadSeconds)), \
            "appliedPerSecondPerNodeMinMedianMax": \(range(appliedPerNode)), \
            "convergenceSeconds": \(rounded(convergenceSeconds)), \
            "wireBytesReceivedAcrossMesh": \(wireBytesAtStop), \
            "wireBytesPerOpPerReceiver": \(rounded(Double(wireBytesAtStop) / Double(max(1, made * (options.nodes - 1))))), \
            "encodedBytesPerOp": \(rounded(Double(logBytes) / Double(max(1, opCount)))), \
            "wireBytesPerOpPerReceiverOverEncoded": \(rounded(Double(wireBytesAtStop) / Double(max(1, made * (options.nodes - 1))) / (Double(logBytes) / Double(max(1, opCount))))), \
            "latencySamples": \(latencies.count), "latencyP50Ms": \(ms(percentile(latencies, 0.5))), \
            "latencyP90Ms": \(ms(percentile(latencies, 0.9))), "latencyP99Ms": \(ms(percentile(latencies, 0.99))), \
            "latencyMaxMs": \(ms(latencies.last ?? 0)), \
            "performP50Ms": \(ms(percentile(perform, 0.5))), "performP99Ms": \(ms(percentile(perform, 0.99))), \
            "fsyncsPerSecondPerNodeMinMedianMax": \(range(fsyncs)), \
            "fsyncProbeMs": \(fsyncMilliseconds.map { "\(rounded($0))" } ?? "null"), \
            "cpuSecondsPerSecond": \(rounded((cpuAtStop - cpuBefore) / loadSeconds)), \
            "finalOps": \(opCount), "finalItems": \(items), "opLogBytesInMemory": \(logBytes), \
            "opLogFileBytes": \(fileBytes.map { "\($0.max() ?? 0)" } ?? "null"), \
            "rssBeforeBytes": \(rssBefore ?? 0), "rssMeshedBytes": \(rssMeshed ?? 0), "rssAfterBytes": \(rssAfter ?? 0), \
            "peakRSSBytes": \(peakRSS ?? 0), "harnessTableBytesEstimate": \((made + arrivalCount) * 24), \
            "rssGrowthPerNodeBytes": \(rssGrowth / options.nodes), \
            "rssAfterMallocTrimBytes": \(rssAfterTrim ?? 0), \
            "bytesPerOpHeldPerNode": \(rounded(Double(rssGrowth) / Double(options.nodes * max(1, opCount)))), \
            "liveBytesPerOpHeldPerNodeNetOfHarness": \(rounded(Double((rssAfterTrim ?? 0) - (rssBefore ?? 0) - (made + arrivalCount) * 24) / Double(options.nodes * max(1, opCount))))}
            """,
        ]
    }

    /// The 1-minute load average, from `/proc/loadavg`; 0 when unknown.
    static func loadAverage() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
              let first = text.split(separator: " ").first, let value = Double(first) else { return 0 }
        return value
    }

    /// User and system CPU seconds of this process so far.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The mean time of one 100-byte append and fsync in the temporary directory, as an op log
    /// append costs, over 200 of them (milliseconds).
    static func fsyncProbe() throws -> Double {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-fsync-\(UUID().uuidString)").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw BenchFailure.failed("load: cannot create \(path)") }
        defer {
            close(descriptor)
            unlink(path)
        }
        let bytes = [UInt8](repeating: 0x5A, count: 100)
        let count = 200
        let start = uptimeNanoseconds()
        for _ in 0..<count {
            guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count, fsync(descriptor) == 0 else {
                throw BenchFailure.failed("load: cannot write \(path)")
            }
        }
        return Double(uptimeNanoseconds() - start) / 1e6 / Double(count)
    }

    static func rounded(_ value: Double) -> Double {
        (value * 1_000).rounded() / 1_000
    }
}

/// The results of the pacers, summed by node index.
final class PacerResults: Sendable {
    private let results: Mutex<[PacerResult]>

    init(count: Int) {
        results = Mutex(Array(repeating: PacerResult(), count: count))
    }

    /// Adds the result of one of a node's pacers to the node's.
    func add(_ index: Int, _ result: PacerResult) {
        results.withLock { results in
            results[index].made += result.made
            results[index].skipped += result.skipped
            results[index].failed += result.failed
            results[index].performMicroseconds += result.performMicroseconds
            results[index].mix.merge(result.mix, uniquingKeysWith: +)
            results[index].created += result.created
        }
    }

    var all: [PacerResult] { results.withLock { $0 } }
}

/// Makes one node's ops: slot `k` is due at `start + k * interval`; the pacer sleeps until the slot
/// is due, makes one op, and when it is more than one slot late, skips the slots it missed (counted)
/// rather than making them in a burst. So a node never makes more than the target rate, and makes
/// less when its `perform` takes longer than a slot.
///
/// The mix, chosen on the node's own replica at the time: half the ops in the node's own gallery,
/// half in the shared one; 40% inserts of one titled item at a random index (always when the gallery
/// has fewer than 20 items), 25% moves of a random item to a random index (one in five to the other
/// of the two galleries), 20% title updates, 15% deletes.
struct Pacer: Sendable {
    let node: SyncNode
    let index: Int
    let names: [String]
    let seed: UInt64

    func run(start: UInt64, interval: UInt64, slots: Int, sequenceOffset: Int = 0, sequenceStride: Int = 1,
             until stop: () -> Bool = { false }) -> PacerResult {
        var result = PacerResult()
        result.performMicroseconds.reserveCapacity(slots)
        result.created.reserveCapacity(slots)
        var random = SeededGenerator(seed: seed)
        var slot = 0
        let own = names[index]
        let shared = LoadMesh.sharedGallery
        while slot < slots && !stop() {
            let due = start + UInt64(slot) * interval
            var now = uptimeNanoseconds()
            if now < due {
                sleep(nanoseconds: due - now)
                now = uptimeNanoseconds()
            } else if now - due >= interval {
                let late = Int((now - due) / interval)
                let skip = min(late, slots - slot)
                result.skipped += skip
                slot += skip
                if slot >= slots { break }
            }
            slot += 1
            let sequence = slot * sequenceStride + sequenceOffset
            let stamp = uptimeNanoseconds()
            do {
                let (op, kind) = try node.perform { replica in
                    try Self.makeOp(on: &replica, own: own, shared: shared, sequence: sequence, random: &random)
                }
                result.created.append((op.id, stamp))
                result.made += 1
                result.mix[kind, default: 0] += 1
            } catch {
                result.failed += 1
            }
            result.performMicroseconds.append(UInt32(min((uptimeNanoseconds() - stamp) / 1_000, UInt64(UInt32.max))))
        }
        return result
    }

    private func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    static func makeOp(
        on replica: inout Replica, own: String, shared: String, sequence: Int, random: inout SeededGenerator
    ) throws -> (Op, String) {
        let gallery = Bool.random(using: &random) ? own : shared
        let count = try replica.count(in: gallery)
        let roll = Double.random(in: 0..<1, using: &random)
        if count < 20 || roll < 0.40 {
            let op = try replica.insert(
                [.titled("\(own)-\(sequence)")], into: gallery, at: Int.random(in: 0...count, using: &random))
            return (op, "insert")
        }
        let item = try replica.item(at: Int.random(in: 0..<count, using: &random), in: gallery).id
        if roll < 0.65 {
            if Int.random(in: 0..<5, using: &random) == 0 {
                let target = gallery == own ? shared : own
                let targetCount = try replica.count(in: target)
                return (try replica.move(item, to: target, at: Int.random(in: 0...targetCount, using: &random)), "move")
            }
            return (try replica.move(item, to: gallery, at: Int.random(in: 0..<count, using: &random)), "move")
        }
        if roll < 0.85 {
            return (try replica.update(item, .title, to: .text("\(own)-\(sequence)-u")), "update")
        }
        return (try replica.delete(item), "delete")
    }
}

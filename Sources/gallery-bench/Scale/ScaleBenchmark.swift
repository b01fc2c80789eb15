import Foundation
import GalleryHost
import GalleryIO
import GallerySimulation
#if canImport(Glibc)
import Glibc
#endif

/// `gallery-bench scale`: a space of many items in a node directory. This process builds it through
/// a `GalleryServer` (single-item inserts at random indices of random galleries, 1,000 per command,
/// so the op log holds one record per item); a child process then opens the directory (start-up
/// time: replaying the whole op log; memory), and another child, a new empty node, joins it (catch-up
/// time and bytes).
enum ScaleBenchmark {
    struct Options {
        var items = 1_000_000
        var galleries = 100
        var seed: UInt64 = 1

        init(_ arguments: [String]) throws {
            var rest = arguments[...]
            while let flag = rest.popFirst() {
                guard let text = rest.popFirst(), let value = Int(text), value >= 0 else {
                    throw BenchFailure.usage("\(flag) needs a whole number")
                }
                switch flag {
                case "--items": items = value
                case "--galleries":
                    guard (1...10_000).contains(value) else { throw BenchFailure.usage("--galleries takes 1...10000") }
                    galleries = value
                case "--seed": seed = UInt64(value)
                default: throw BenchFailure.usage("unknown option \(flag) for scale")
                }
            }
        }
    }

    private static let itemsPerCommand = 1_000

    static func run(_ arguments: [String]) throws -> [String] {
        switch arguments.first {
        case "--serve":
            guard arguments.count == 2 else { throw BenchFailure.usage("scale --serve DIR") }
            try serve(URL(fileURLWithPath: arguments[1]))
            return []
        case "--join":
            guard arguments.count == 8, arguments[2] == "--peer", arguments[4] == "--secret", arguments[6] == "--ops",
                  let peer = Endpoint(arguments[3]), let ops = Int(arguments[7]) else {
                throw BenchFailure.usage("scale --join DIR --peer HOST:PORT --secret FILE --ops N")
            }
            return [try join(URL(fileURLWithPath: arguments[1]), peer: peer, secret: URL(fileURLWithPath: arguments[5]), ops: ops)]
        default:
            return try measure(Options(arguments))
        }
    }

    private static func measure(_ options: Options) throws -> [String] {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-scale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let source = root.appendingPathComponent("source")
        let loadBefore = LoadBenchmark.loadAverage()

        // Build the space through a node, as its commands would.
        let galleryNames = (0..<options.galleries).map { String(format: "g%03d", $0) }
        let build = try Stopwatch.time { () throws -> Int in
            let server = try GalleryServer(directory: source, name: galleryNames[0], log: .silent)
            defer { server.stop() }
            try server.start()
            try server.node.perform { replica in
                for name in galleryNames.dropFirst() { try replica.createGallery(name) }
            }
            var random = SeededGenerator(seed: options.seed)
            var counts = Array(repeating: 0, count: options.galleries)
            var made = 0
            while made < options.items {
                let batch = min(itemsPerCommand, options.items - made)
                try server.node.perform { replica in
                    for offset in 0..<batch {
                        let gallery = Int.random(in: 0..<options.galleries, using: &random)
                        try replica.insert(
                            [.titled(String(format: "img%07d", made + offset))], into: galleryNames[gallery],
                            at: Int.random(in: 0...counts[gallery], using: &random))
                        counts[gallery] += 1
                    }
                }
                made += batch
            }
            return server.node.read { $0.opCount }
        }
        let ops = build.result
        let logBytes = try fileSize(source.appendingPathComponent("oplog"))

        // An empty node, for its baseline memory.
        let empty = try ServedNode(directory: root.appendingPathComponent("empty"), arguments: ["scale", "--serve", root.appendingPathComponent("empty").path])
        let emptyMemory = try empty.memory()
        empty.stop()

        // The node on the full directory.
        let spawned = uptimeNanoseconds()
        let node = try ServedNode(directory: source, arguments: ["scale", "--serve", source.path], timeout: 600)
        let listeningSeconds = Double(uptimeNanoseconds() - spawned) / 1e9
        defer { node.stop() }
        let memory = try node.memory()
        let lines = node.greeting.split(separator: "\n")
        guard let report = lines.first(where: { $0.hasPrefix("{") }),
              let listening = lines.first(where: { $0.hasPrefix("listening on ") }),
              let address = Endpoint(String(listening.dropFirst("listening on ".count))) else {
            throw BenchFailure.failed("scale: the node did not report its start-up: \(node.greeting)")
        }

        // A new empty node joins it.
        let joiner = try ChildRun.run([
            "scale", "--join", root.appendingPathComponent("joiner").path, "--peer", address.description,
            "--secret", source.appendingPathComponent("secret").path, "--ops", "\(ops)",
        ])
        guard joiner.status == 0, let joined = joiner.output.split(separator: "\n").first(where: { $0.hasPrefix("{") }) else {
            throw BenchFailure.failed("scale: the joining node failed (exit status \(joiner.status))")
        }
        // The child read its own RSS as it started, then called malloc_trim: `memory` (read after)
        // is the trimmed figure, so the per-item figures come from the child's two readings.
        let fields = (try? JSONSerialization.jsonObject(with: Data(report.utf8))) as? [String: Any] ?? [:]
        func perItem(_ name: String) -> Double {
            guard let bytes = fields[name] as? Int else { return 0 }
            return Double(bytes - emptyMemory.resident) / Double(max(options.items, 1))
        }
        return [
            """
            {"workload": "scale-build", "items": \(options.items), "galleries": \(options.galleries), "ops": \(ops), \
            "commands": \((options.items + itemsPerCommand - 1) / itemsPerCommand), "seconds": \(rounded(build.seconds)), \
            "opLogFileBytes": \(logBytes), "opLogBytesPerOp": \(rounded(Double(logBytes) / Double(ops))), \
            "loadAverageBefore": \(loadBefore)}
            """,
            """
            {"workload": "scale-startup", \(report.dropFirst().dropLast()), "spawnToListeningSeconds": \(rounded(listeningSeconds)), \
            "rssEmptyNodeBytes": \(emptyMemory.resident), "peakRSSBytes": \(memory.peak), \
            "rssBytesPerItemAtStart": \(rounded(perItem("rssAtStartBytes"))), \
            "rssBytesPerItemAfterMallocTrim": \(rounded(perItem("rssAfterMallocTrimBytes"))), \
            "loadAverage": \(LoadBenchmark.loadAverage())}
            """,
            String(joined),
        ]
    }

    /// The child that serves a directory: prints its start-up figures as a JSON object, then
    /// `listening on HOST:PORT`, and serves until its standard input closes.
    private static func serve(_ directory: URL) throws {
        let start = uptimeNanoseconds()
        let server = try GalleryServer(directory: directory, name: "g000", log: .silent)
        let opened = uptimeNanoseconds()
        let endpoint = try server.start()
        let started = uptimeNanoseconds()
        let ops = server.node.read { $0.opCount }
        let items = server.node.read { replica in
            replica.galleries.reduce(0) { $0 + ((try? replica.count(in: $1)) ?? 0) }
        }
        // How much of the resident memory is heap freed after the replay but kept by malloc.
        let resident = MemoryUsage.currentResidentBytes() ?? 0
        MemoryUsage.releaseFreeHeap()
        let trimmed = MemoryUsage.currentResidentBytes() ?? 0
        writeLine("""
            {"ops": \(ops), "items": \(items), "records": \(server.recovery.records), \
            "rssAtStartBytes": \(resident), "rssAfterMallocTrimBytes": \(trimmed), \
            "startupSeconds": \(rounded(Double(started - start) / 1e9)), "openSeconds": \(rounded(Double(opened - start) / 1e9)), \
            "startupMicrosecondsPerOp": \(rounded(Double(started - start) / 1e3 / Double(max(ops, 1))))}
            """, to: .standardOutput)
        writeLine("listening on \(endpoint?.description ?? "nothing")", to: .standardOutput)
        _ = FileHandle.standardInput.readDataToEndOfFile()
        server.stop()
    }

    /// The child that joins: a new node on an empty directory dialing `peer`, timed from its start
    /// until it has applied the peer's `ops` ops (plus its own gallery) and its version vector
    /// includes the one the peer sent with `caught_up`.
    private static func join(_ directory: URL, peer: Endpoint, secret: URL, ops: Int) throws -> String {
        let rssBefore = MemoryUsage.currentResidentBytes() ?? 0
        let start = uptimeNanoseconds()
        let server = try GalleryServer(directory: directory, name: "joiner", peers: [peer], secretFile: secret, log: .silent)
        defer { server.stop() }
        try server.start()
        guard server.node.wait(timeout: .seconds(600), until: { $0.opCount >= ops + 1 }) else {
            throw BenchFailure.failed("scale: the new node did not catch up in 600 s (\(server.node.read { $0.opCount }) of \(ops + 1) ops)")
        }
        let caughtUp = uptimeNanoseconds()
        guard server.node.waitForPeers(timeout: .seconds(30), until: { $0.first?.syncedUpTo != nil }),
              let status = server.node.peers.first, let target = status.syncedUpTo,
              server.node.read({ $0.version.includes(target) }) else {
            throw BenchFailure.failed("scale: the new node's version vector does not include the source's")
        }
        let seconds = Double(caughtUp - start) / 1e9
        let memory = (MemoryUsage.currentResidentBytes() ?? 0, MemoryUsage.peakResidentBytes() ?? 0)
        return """
            {"workload": "scale-catch-up", "ops": \(ops), "seconds": \(rounded(seconds)), \
            "opsPerSecond": \(Int(Double(ops) / seconds)), "bytesReceived": \(status.bytesReceived), \
            "bytesSent": \(status.bytesSent), "wireBytesPerOp": \(rounded(Double(status.bytesReceived) / Double(ops))), \
            "opLogFsyncs": \(server.opLogSyncCount), "opLogFileBytes": \(try fileSize(directory.appendingPathComponent("oplog"))), \
            "rssBeforeBytes": \(rssBefore), "rssBytes": \(memory.0), "peakRSSBytes": \(memory.1), \
            "loadAverage": \(LoadBenchmark.loadAverage())}
            """
    }

    private static func fileSize(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 1_000).rounded() / 1_000
    }
}

import Foundation
import GalleryControl
import GalleryHost
import GalleryWire

/// `gallery-bench node`: a node on a directory (durable op log, blob store) driven through its
/// control port as the command line drives it: 1,000 image files added as one command and as
/// 1,000 commands, and the node's resident memory with a 100,000-item space.
enum NodeBenchmark {
    /// Runs the suite and returns its JSON lines; `--serve DIR` runs the measured child instead.
    static func run(_ arguments: [String]) throws -> [String] {
        switch arguments {
        case []:
            return [try addFiles(oneCommand: true), try addFiles(oneCommand: false), try memory()]
        case let arguments where arguments.count == 2 && arguments[0] == "--serve":
            try NodeChild.serve(URL(fileURLWithPath: arguments[1]))
            return []
        default:
            throw BenchFailure.usage("unknown arguments \"node \(arguments.joined(separator: " "))\"")
        }
    }

    private static let fileCount = 1_000
    private static let spaceItems = 100_000
    private static let itemsPerCommand = 1_000

    /// A scratch directory, removed by `body`'s end.
    private static func withScratchDirectory<Result>(_ body: (URL) throws -> Result) throws -> Result {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-node-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }

    /// Sends one command to the node serving `directory`; throws unless it succeeds.
    private static func send(_ request: ControlRequest, to directory: URL) throws -> ControlResponse {
        let response = try ControlClient.send(request, to: directory, timeout: .seconds(300))
        guard response.ok else { throw BenchFailure.failed("\(request.command.name.rawValue) failed: \(response.error ?? "?")") }
        return response
    }

    /// 1,000 distinct 32 x 32 PNGs (about 3 KiB each) added to a fresh node, as one `add` of all
    /// of them or as 1,000 `add`s of one each; each command is a new authenticated connection.
    private static func addFiles(oneCommand: Bool) throws -> String {
        try withScratchDirectory { scratch in
            let images = scratch.appendingPathComponent("images")
            try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
            var bytes = 0
            let paths = try (0..<fileCount).map { index -> String in
                let png = PNGImage.make(width: 32, height: 32, seed: UInt64(index))
                bytes += png.count
                let url = images.appendingPathComponent(String(format: "img%04d.png", index))
                try Data(png).write(to: url)
                return url.path
            }
            let directory = scratch.appendingPathComponent("node")
            let server = try GalleryServer(directory: directory, name: "bench", log: .silent)
            try server.start()
            defer { server.stop() }
            let syncsBefore = server.opLogSyncCount
            let commands = oneCommand ? 1 : fileCount
            let timed = try Stopwatch.time {
                if oneCommand {
                    let response = try send(ControlRequest(id: 1, command: .add(AddRequest(sources: paths.map(AddSource.file), gallery: "bench"))), to: directory)
                    guard response.reply?.ids?.count == fileCount else { throw BenchFailure.failed("add: \(response.reply?.ids?.count ?? 0) IDs") }
                } else {
                    for (index, path) in paths.enumerated() {
                        let response = try send(ControlRequest(id: index + 1, command: .add(AddRequest(sources: [.file(path)], gallery: "bench"))), to: directory)
                        guard response.reply?.ids?.count == 1 else { throw BenchFailure.failed("add \(path): no ID") }
                    }
                }
            }
            let syncs = server.opLogSyncCount - syncsBefore
            let items = try server.node.read { try $0.items(in: "bench") }
            guard items.count == fileCount, Set(items.compactMap(\.contentHash)).count == fileCount,
                  items.allSatisfy({ $0.mediaType == "image/png" && $0.aspectRatio == 1 }) else {
                throw BenchFailure.failed("add: the gallery holds \(items.count) items, not \(fileCount) distinct 32 x 32 PNGs")
            }
            return """
                {"workload": "add-\(fileCount)-files-\(oneCommand ? "one-command" : "one-per-command")", \
                "commands": \(commands), "items": \(fileCount), "fileBytes": \(bytes), \
                "seconds": \(rounded(timed.seconds)), "itemsPerSecond": \(Int(Double(fileCount) / timed.seconds)), \
                "commandsPerSecond": \(rounded(Double(commands) / timed.seconds)), "opLogFsyncs": \(syncs)}
                """
        }
    }

    /// A node in a child process: resident memory empty, after 100,000 URL items added through its
    /// port (100 `add`s of 1,000), and after a restart that replays them from the op log.
    private static func memory() throws -> String {
        try withScratchDirectory { scratch in
            let directory = scratch.appendingPathComponent("node")
            var node = try ServedNode(directory: directory)
            let empty = try node.memory()
            let timed = try Stopwatch.time {
                for command in 0..<(spaceItems / itemsPerCommand) {
                    let urls = (0..<itemsPerCommand).map {
                        String(format: "https://example.org/photos/img%06d.png", command * itemsPerCommand + $0)
                    }
                    _ = try send(ControlRequest(id: command + 1, command: .add(AddRequest(sources: urls.map(AddSource.url), gallery: "bench", aspect: 1.5))), to: directory)
                }
            }
            let full = try node.memory()
            node.stop()
            node = try ServedNode(directory: directory)
            let restarted = try node.memory()
            let listed = try send(ControlRequest(id: 1, command: .status), to: directory)
            node.stop()
            var ops = 0
            if case .status(let status)? = listed.reply { ops = status.ops }
            guard ops == 1 + spaceItems / itemsPerCommand else {
                throw BenchFailure.failed("memory: the restarted node holds \(ops) ops")
            }
            let perItem = Double(full.resident - empty.resident) / Double(spaceItems)
            let perItemRestarted = Double(restarted.resident - empty.resident) / Double(spaceItems)
            return """
                {"workload": "memory-\(spaceItems)-items", "items": \(spaceItems), "addSeconds": \(rounded(timed.seconds)), \
                "rssEmptyBytes": \(empty.resident), "rssBytes": \(full.resident), "peakRSSBytes": \(full.peak), \
                "rssAfterRestartBytes": \(restarted.resident), "peakRSSAfterRestartBytes": \(restarted.peak), \
                "bytesPerItem": \(rounded(perItem)), "bytesPerItemAfterRestart": \(rounded(perItemRestarted))}
                """
        }
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 1_000).rounded() / 1_000
    }
}

import Foundation
import GalleryControl
import GalleryTestSupport
import GalleryWire
import Synchronization

/// `watch` cost per change (ours only, Syncthing has no such command) in `gallery-bench
/// syncthing`: for each gallery size, a fresh node whose gallery holds that many items (kept by
/// URL: no bytes), `--watch-changes` single-item moves in the middle of the gallery, each its own
/// command over the control socket; the node's CPU per change with no watcher, then with a `gallery
/// watch --json` process attached (each change waited for in its output, so that no answer
/// covers two), and the watcher process's own CPU per change.
struct WatchRound {
    let options: SideBySideOptions
    let results: SideBySideResults
    let repetition: Int
    let scratch: URL

    func run() throws {
        for items in options.watchItems {
            try measure(items: items)
        }
    }

    private func record(_ figure: String, _ value: Double) {
        results.record(figure, .ours, repetition: repetition, value)
    }

    private func measure(items: Int) throws {
        let node = try GalleryPeer(name: "w", directory: scratch.appendingPathComponent("w\(items)"))
        defer { node.stop() }
        var added = 0
        while added < items {
            let count = min(5_000, items - added)
            let sources = (added..<added + count).map { AddSource.url("https://example.invalid/\($0).png") }
            let response = try ControlClient.send(ControlRequest(id: 1, command: .add(AddRequest(sources: sources, gallery: "w"))),
                                                  to: node.directory, timeout: .seconds(600))
            guard response.ok else { throw BenchFailure.failed("watch: adding items failed: \(response.error ?? "?")") }
            added += count
        }
        try node.waitForCount(items, in: "w", timeout: 120)
        let changes = options.watchChanges
        var step = 0
        /// One move of the item in the middle by one place, back and forth.
        func change() throws {
            let middle = items / 2
            step += 1
            let command = ControlCommand.move(item: .position(gallery: "w", index: middle), to: nil, at: step % 2 == 0 ? middle - 1 : middle + 1)
            let response = try ControlClient.send(ControlRequest(id: step, command: command), to: node.directory, timeout: .seconds(60))
            guard response.ok else { throw BenchFailure.failed("watch: a move failed: \(response.error ?? "?")") }
        }
        for _ in 0..<20 { try change() }
        let alone = ProcessProbe.cpuSeconds(node.pid) ?? 0
        for _ in 0..<changes { try change() }
        let aloneCPU = (ProcessProbe.cpuSeconds(node.pid) ?? 0) - alone
        record("watch.\(items).nodeMsPerChangeUnwatched", aloneCPU / Double(changes) * 1_000)

        let watcher = try LineCounter(GalleryProcess.executable, ["-C", node.directory.path, "watch", "w", "--json"])
        defer { watcher.stop() }
        try watcher.waitForLines(1, timeout: 120)
        for _ in 0..<20 {
            let lines = watcher.lines
            try change()
            try watcher.waitForLines(lines + 1, timeout: 30)
        }
        let watched = ProcessProbe.cpuSeconds(node.pid) ?? 0
        let watcherStart = ProcessProbe.cpuSeconds(watcher.pid) ?? 0
        for _ in 0..<changes {
            let lines = watcher.lines
            try change()
            try watcher.waitForLines(lines + 1, timeout: 30)
        }
        let watchedCPU = (ProcessProbe.cpuSeconds(node.pid) ?? 0) - watched
        let watcherCPU = (ProcessProbe.cpuSeconds(watcher.pid) ?? 0) - watcherStart
        record("watch.\(items).nodeMsPerChange", watchedCPU / Double(changes) * 1_000)
        record("watch.\(items).watchCostMsPerChange", (watchedCPU - aloneCPU) / Double(changes) * 1_000)
        record("watch.\(items).watcherProcessMsPerChange", watcherCPU / Double(changes) * 1_000)
    }
}

/// A child process whose standard output is only counted, in lines (a `gallery watch --json`).
final class LineCounter: Sendable {
    private let process: Process
    private let count = Atomic<Int>(0)

    init(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        self.process = process
        try process.run()
        let handle = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                var newlines = 0
                for byte in data where byte == 10 { newlines += 1 }
                count.add(newlines, ordering: .releasing)
            }
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// The lines printed so far.
    var lines: Int { count.load(ordering: .acquiring) }

    /// Waits (polling every 500 µs) until `target` lines were printed.
    func waitForLines(_ target: Int, timeout: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while lines < target {
            guard Date() < deadline, process.isRunning else { throw BenchFailure.failed("watch: the watcher printed \(lines) lines, not \(target)") }
            usleep(500)
        }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

import Foundation
import GalleryControl
import GalleryTestSupport
import GalleryWire
import Synchronization

/// `watch` cost per change (ours only, Syncthing has no such command) in `gallery-bench
/// syncthing`: for each gallery size, a fresh node whose gallery holds that many items (kept by
/// URL: no bytes), `--watch-changes` single-item moves in the middle of the gallery, each its own
/// command over the control socket; the node's CPU per change with no watcher, then with
/// `--watchers` `gallery watch --json` processes attached (each change waited for in every output,
/// so that no answer covers two), in `--watch-blocks` interleaved blocks; the cost per change of
/// one watcher, and a watcher process's own CPU per change.
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
        // Blocks without and with `--watchers` watchers attached, interleaved, so that a drift of
        // the machine's load falls on both alike; each watched block's CPU is read after its
        // watchers got the listing and a few changes, so that the listing sent at subscribe is not
        // counted. The cost per watcher is the difference over the watchers attached: with 8, the
        // signal is 8 times a single watcher's while the noise of the two readings stays the same.
        var aloneCPU = 0.0
        var watchedCPU = 0.0
        var watcherCPU = 0.0
        var measured = 0
        for _ in 0..<options.watchBlocks {
            for _ in 0..<20 { try change() }
            let alone = ProcessProbe.cpuSeconds(node.pid) ?? 0
            for _ in 0..<changes { try change() }
            aloneCPU += (ProcessProbe.cpuSeconds(node.pid) ?? 0) - alone

            let watchers = try (0..<options.watchers).map { _ in
                try LineCounter(GalleryProcess.executable, ["-C", node.directory.path, "watch", "w", "--json"])
            }
            defer { for watcher in watchers { watcher.stop() } }
            for watcher in watchers { try watcher.waitForLines(1, timeout: 300) }
            /// One change, waited for in every watcher's output.
            func watchedChange(timeout: TimeInterval = 30) throws {
                let lines = watchers.map(\.lines)
                try change()
                for (watcher, count) in zip(watchers, lines) { try watcher.waitForLines(count + 1, timeout: timeout) }
            }
            // The first changes may wait behind the listings still being written to the others
            // (15 MB each at 100,000 items): a generous bound for them.
            for _ in 0..<20 { try watchedChange(timeout: 300) }
            let watched = ProcessProbe.cpuSeconds(node.pid) ?? 0
            let watcherStart = watchers.map { ProcessProbe.cpuSeconds($0.pid) ?? 0 }
            for _ in 0..<changes { try watchedChange() }
            watchedCPU += (ProcessProbe.cpuSeconds(node.pid) ?? 0) - watched
            watcherCPU += zip(watchers, watcherStart).map { (ProcessProbe.cpuSeconds($0.pid) ?? 0) - $1 }.reduce(0, +)
            measured += changes
        }
        let perChange = 1_000 / Double(measured)
        record("watch.\(items).nodeMsPerChangeUnwatched", aloneCPU * perChange)
        record("watch.\(items).nodeMsPerChange", watchedCPU * perChange)
        record("watch.\(items).watchCostMsPerChange", (watchedCPU - aloneCPU) * perChange / Double(options.watchers))
        record("watch.\(items).watcherProcessMsPerChange", watcherCPU * perChange / Double(options.watchers))
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

import Foundation
import GalleryControl
import GalleryTestSupport
import GalleryWire
import Synchronization
import Testing

/// A `gallery watch` of a large gallery stays attached past its listing, however long the client
/// takes over it: the node drops a client silent for its timeout (5 s), and the command line used
/// to answer heartbeats only between answers, so that a watcher decoding or printing a listing of
/// 100,000 items on a loaded machine was dropped right after it ("timeout: no frame for 5045 ms").
/// (What a change costs at 100 and 100,000 items is WatchDeltaTests'.)
@Suite("Watch of a large gallery: attached past its listing")
struct WatchListingLivenessTests {
    /// Standard output of a child process, read on a thread of its own that stops reading while
    /// the gate is shut, so that the child blocks writing.
    private final class GatedOutput: Sendable {
        private let text = Mutex(Data())
        private let open = Mutex(true)
        private let opened = DispatchSemaphore(value: 0)
        /// Where the next `contains` starts searching.
        private let searched = Mutex(0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                while true {
                    if !open.withLock({ $0 }) { opened.wait() }
                    let data = handle.availableData
                    if data.isEmpty { break }
                    text.withLock { $0.append(data) }
                }
            }
        }

        /// Stops reading once the read under way returns.
        func shut() { open.withLock { $0 = false } }

        /// Reads again.
        func reopen() {
            open.withLock { $0 = true }
            opened.signal()
        }

        /// How many bytes were read.
        var count: Int { text.withLock { $0.count } }

        /// Whether what was read contains `marker`; each call searches only what came since the
        /// last one (a redraw of 100,000 items is megabytes).
        func contains(_ marker: String) -> Bool {
            let needle = Data(marker.utf8)
            return text.withLock { data in
                let start = max(data.startIndex, searched.withLock { $0 } - needle.count)
                searched.withLock { $0 = data.endIndex }
                return data.range(of: needle, in: start..<data.endIndex) != nil
            }
        }
    }

    /// A `gallery serve` node on a fresh directory whose gallery "w" holds `count` items kept by
    /// URL (no bytes), added 5,000 to a command.
    private static func node(items count: Int) throws -> (ServeProcess, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-watch-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let node = try ServeProcess([directory.path, "--name", "w"])
        var added = 0
        while added < count {
            let sources = (added..<min(count, added + 5_000)).map { AddSource.url("https://example.invalid/\($0).png") }
            let response = try ControlClient.send(ControlRequest(id: 1, command: .add(AddRequest(sources: sources, gallery: "w"))),
                                                  to: directory, timeout: .seconds(600))
            try #require(response.ok, "adding items: \(response.error ?? "?")")
            added += sources.count
        }
        return (node, directory)
    }

    @Test("watch of 20,000 items: its output unread for three node timeouts after the listing, still attached, then shows a change")
    func watcherSurvivesSlowListing() throws {
        // 20,000 lines are megabytes, far past a pipe's buffer: the client blocks on its output
        // as it would at any larger size (the per-change figures at 100 and 100,000 items are
        // WatchDeltaTests' and `gallery-bench watch`'s; a second 100,000-item node here starved
        // the suite's timing tests on 2 cores).
        let count = 20_000
        let (node, directory) = try Self.node(items: count)
        defer {
            #expect(node.stop() == 0)
            try? FileManager.default.removeItem(at: directory)
        }

        // The text view: the listing is printed as 20,000 lines (megabytes), which block the
        // client while nobody reads them.
        let watcher = Process()
        watcher.executableURL = GalleryProcess.executable
        watcher.arguments = ["-C", directory.path, "watch", "w"]
        let output = Pipe(), errors = Pipe()
        watcher.standardOutput = output
        watcher.standardError = errors
        watcher.standardInput = FileHandle.nullDevice
        try SpawnSignalMask.cleared { try watcher.run() }
        defer {
            if watcher.isRunning { watcher.terminate() }
            watcher.waitUntilExit()
        }
        let printed = GatedOutput(output.fileHandleForReading)
        // The first bytes of the listing: the client has it, and is printing it.
        let listed = Date().addingTimeInterval(300)
        while printed.count == 0 && watcher.isRunning && Date() < listed { usleep(5_000) }
        try #require(printed.count > 0, "the watcher printed no listing in 300 s")
        printed.shut()
        // Three times the node's timeout with the client's output unread: a client that answers
        // heartbeats only between answers is dropped in this time.
        let stalled = Date().addingTimeInterval(15)
        while Date() < stalled {
            #expect(watcher.isRunning, "the watcher exited while its output was unread")
            usleep(100_000)
        }
        printed.reopen()

        let marker = "still-watching-\(UUID().uuidString.prefix(8))"
        let updated = try GalleryProcess.run(["-C", directory.path, "update", "w:\(count / 2)", "--title", marker], timeout: 120)
        #expect(updated.ok, "\(updated.stderr)")
        let seen = Date().addingTimeInterval(300)
        var shown = false
        while !shown && watcher.isRunning && Date() < seen {
            shown = printed.contains(marker)
            if !shown { usleep(20_000) }
        }
        shown = shown || printed.contains(marker)
        let stderr = watcher.isRunning ? "" : String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(shown, "the watcher did not show the change; it printed \(printed.count) bytes; \(stderr)")
        #expect(watcher.isRunning, "the watcher exited: \(stderr)")
    }
}

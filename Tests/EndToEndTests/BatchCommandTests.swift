import Foundation
import GalleryControl
import GalleryTestSupport
import GalleryWire
import Synchronization
import Testing

/// `move`, `delete` and `update` of many items (named on the command line or one per line of
/// standard input) against a real `gallery serve`: one request and one durable batch, all or
/// nothing, the refusal naming the item that does not resolve.
@Suite("gallery -C DIR batch commands", .serialized)
struct BatchCommandTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-batch-\(UUID().uuidString)")

    private func gallery(_ arguments: [String], input: String = "") throws -> GalleryProcess.Result {
        try GalleryProcess.run(["-C", directory.path] + arguments, input: Data(input.utf8))
    }

    /// The IDs of a gallery, in order.
    private func ids(_ name: String) throws -> [String] {
        let result = try gallery(["list", name, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (object?["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    /// The node's op count.
    private func ops() throws -> Int {
        let result = try gallery(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["ops"] as? Int ?? -1
    }

    /// A node named "b" with `count` items added by URL in one command; their IDs.
    private func node(items count: Int) throws -> (ServeProcess, [String]) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let node = try ServeProcess([directory.path, "--name", "b"])
        let added = try gallery(["add"] + (0..<count).map { "https://example.org/\($0).png" })
        #expect(added.status == 0, "\(added.stderr)")
        return (node, added.stdout.split(separator: "\n").map(String.init))
    }

    /// The answers of a `watch` of `gallery`, taken on a thread of their own until `stop`.
    private final class Watcher: Sendable {
        private let answers = Mutex<[ControlResponse]>([])
        private let stopped = Atomic(false)

        init(_ directory: URL, gallery: String) {
            Thread.detachNewThread { [self] in
                try? ControlClient.stream(ControlRequest(id: 1, command: .watch(gallery: gallery)), to: directory, timeout: .seconds(30)) { response in
                    self.answers.withLock { $0.append(response) }
                    return !self.stopped.load(ordering: .relaxed)
                }
            }
        }

        var received: [ControlResponse] { answers.withLock { $0 } }

        /// Waits until `count` answers came; false on timeout.
        func wait(for count: Int, timeout: TimeInterval = 30) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while received.count < count {
                if Date() > deadline { return false }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return true
        }

        func stop() { stopped.store(true, ordering: .relaxed) }
    }

    @Test("1,000 moves in one command are one request and one durable batch; a bad reference in the middle applies nothing")
    func thousandMoves() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let (node, ids) = try node(items: 1_000)
        defer { #expect(node.stop() == 0) }
        #expect(ids.count == 1_000)
        let watcher = Watcher(directory, gallery: "b")
        defer { watcher.stop() }
        #expect(watcher.wait(for: 1), "the watch answered with the listing")
        let before = try ops()

        // Item 500 names a place past the end: nothing moves, and the refusal says which.
        var references = Array(ids.reversed())
        references[499] = "b:5000"
        let refused = try gallery(["move"] + references + ["--at", "0"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "gallery: item 500 of 1000 (b:5000): index 5000 out of range (count 1000); nothing was moved\n", "\(refused.stderr)")
        #expect(try self.ids("b") == ids)
        #expect(try ops() == before)

        // An ID named twice, an unknown ID: refused as well, naming the item.
        let twice = try gallery(["move", ids[3], ids[4], ids[3], "--at", "0"])
        #expect(twice.status == 1 && twice.stderr.contains("item 3 of 3 (\(ids[3]))") && twice.stderr.contains("nothing was moved"), "\(twice.stderr)")
        let unknown = try gallery(["delete", ids[0], "999999@0000000000000001", ids[1]])
        #expect(unknown.status == 1 && unknown.stderr.contains("item 2 of 3 (999999@0000000000000001)"), "\(unknown.stderr)")
        #expect(try ops() == before)

        // The reversal, in one command.
        let started = Date()
        let moved = try gallery(["move"] + ids.reversed() + ["--at", "0"])
        let seconds = Date().timeIntervalSince(started)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(try self.ids("b") == ids.reversed())
        #expect(try ops() == before + 1_000)
        // One durable batch: the watcher is told of all 1,000 moves in one answer.
        #expect(watcher.wait(for: 2))
        let answers = watcher.received
        #expect(answers.count == 2, "\(answers.count - 1) answers after the listing")
        #expect(answers.last?.reply?.events?.count == 1_000)
        #expect(answers.last?.reply?.events?.allSatisfy { $0.event == .moved } == true)
        print("1,000 moves in one command: \(String(format: "%.2f", seconds)) s")
    }

    @Test("--stdin: one item per line (blank lines and CRs skipped) for move, update and delete; a bad line is a usage error")
    func standardInput() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let (node, ids) = try node(items: 20)
        defer { #expect(node.stop() == 0) }
        #expect(try gallery(["new-gallery", "trip"]).status == 0)

        // Places are read from the listing before the move: b:0 and b:1 are the first two items.
        let moved = try gallery(["move", "--stdin", "--to", "trip", "--at", "0"], input: "b:1\r\n\n\(ids[5])\n  \nb:0\n")
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(try self.ids("trip") == [ids[1], ids[5], ids[0]])

        let updated = try gallery(["update", "--stdin", ids[2], "--title", "same"], input: "trip:0\ntrip:2\n")
        #expect(updated.status == 0, "\(updated.stderr)")
        let listed = try gallery(["list", "--json"])
        #expect(listed.stdout.components(separatedBy: "\"same\"").count - 1 == 3, "\(listed.stdout)")

        let deleted = try gallery(["delete", "--stdin"], input: (ids[6...9] + ["trip:1"]).joined(separator: "\n"))
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try self.ids("trip") == [ids[1], ids[0]])
        #expect(try self.ids("b").count == 20 - 3 - 4)

        let bad = try gallery(["delete", "--stdin"], input: "\(ids[10])\nnot an item\n")
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("gallery: standard input, line 2: \"not an item\" is neither"), "\(bad.stderr)")
        #expect(bad.stderr.contains("usage: gallery -C DIR delete ITEM... [--stdin]"))
        let empty = try gallery(["move", "--stdin", "--at", "0"], input: "\n\n")
        #expect(empty.status == 64 && empty.stderr.hasPrefix("gallery: standard input names no ITEM"), "\(empty.stderr)")
        #expect(try self.ids("b").count == 13)
    }

    @Test("watch, piped: the view it keeps from the changes alone ends as list prints the gallery")
    func watchKeepsTheView() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let (node, ids) = try node(items: 50)
        defer { #expect(node.stop() == 0) }
        #expect(try gallery(["new-gallery", "trip"]).status == 0)
        let watcher = try ServeProcess(["-C", directory.path, "watch", "b"], serve: false)
        defer { _ = watcher.stop(signal: SIGINT) }
        // The first listing: a header and 50 items.
        #expect(watcher.waitForLines(51), "watch printed: \(watcher.standardOutput)")
        let changes: [[String]] = [
            ["move", "b:10", "b:3", "b:40", "--at", "0"],
            ["move", ids[20], ids[21], "--to", "trip", "--at", "0"],
            ["delete", "b:5", "b:6", ids[49]],
            ["update", "b:0", "b:1", "--title", "T"],
            ["add", "https://example.org/x.png", "https://example.org/y.png", "--at", "2"],
            ["move", "trip:1", "--to", "b", "--at", "7"],
            ["move", "b:30", "b:2", "b:31", "b:1", "--at", "44"],
        ]
        for change in changes {
            let result = try gallery(change)
            #expect(result.status == 0, "\(change): \(result.stderr)")
        }
        let expected = try gallery(["list", "b"]).stdout
        let deadline = Date().addingTimeInterval(20)
        while !watcher.standardOutput.hasSuffix(expected + "\n") && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let blocks = watcher.standardOutput.components(separatedBy: "\n\n")
        #expect(watcher.standardOutput.hasSuffix(expected + "\n"), "list:\n\(expected)\nwatch ended with:\n\(blocks.dropLast().last ?? "")")
    }

    @Test("the CLI's own start-up: help and a no-op command are quick")
    func startUp() throws {
        // Not a benchmark (BENCHMARKS.md has the figures): a start-up that grew by an order of
        // magnitude shows here first.
        var fastest = Double.infinity
        for _ in 0..<5 {
            let started = Date()
            let result = try GalleryProcess.run(["help", "move"])
            fastest = min(fastest, Date().timeIntervalSince(started))
            #expect(result.status == 0 && result.stdout.hasPrefix("usage: gallery -C DIR move ITEM..."))
        }
        #expect(fastest < 1.0, "gallery help takes \(fastest) s")
    }
}

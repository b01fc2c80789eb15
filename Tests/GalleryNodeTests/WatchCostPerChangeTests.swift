import Foundation
@testable import GalleryControl
import GalleryIO
@testable import GalleryModel
@testable import GalleryNode
import GalleryWire
import Synchronization
import Testing

extension NodeSuites {
    /// What a `watch` costs the node per change, whatever the gallery's size: the feed reads the
    /// replica between changes, and must leave it for the next change to mutate in place.
    @Suite("Watch cost per change")
    struct WatchCostPerChangeTests {
        /// Counts the answers a watcher is sent.
        final class CountingSink: WatchSink {
            let answers = Atomic<Int>(0)
            func send(_ response: ControlResponse) { answers.add(1, ordering: .releasing) }

            /// Waits until `count` answers came; false on timeout.
            func wait(for count: Int, timeout: TimeInterval = 30) -> Bool {
                let deadline = Date().addingTimeInterval(timeout)
                while answers.load(ordering: .acquiring) < count {
                    if Date() > deadline { return false }
                    usleep(200)
                }
                return true
            }
        }

        /// Where the replica's item records live: moves rewrite records in place, so the address
        /// changes only when the array was copied (or grew, which a move never makes it).
        private static func itemStorage(_ node: SyncNode) -> UInt {
            node.read { replica in replica.items.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
        }

        /// CPU seconds of this process so far.
        private static func processCPUSeconds() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }

        /// Over `changes` single-item moves in the middle of a gallery of `count` items, watched or
        /// not: how many moved the item records to new storage (a copy), and the CPU per change.
        private func measure(items count: Int, changes: Int = Int(ProcessInfo.processInfo.environment["WATCH_COST_CHANGES"] ?? "") ?? 60) throws -> (copiesAlone: Int, copiesWatched: Int, msAlone: Double, msWatched: Double) {
            let cluster = try TestCluster(["watched"], peerTimeout: .seconds(120))
            defer { cluster.stop() }
            let node = cluster.nodes[0]
            try node.perform { replica in
                try replica.createGallery("g")
                try replica.insertRun((0..<count).map { ItemDraft(fields: [.title: .text("i\($0)")]) }, into: "g", at: 0)
            }
            let middle = count / 2
            var step = 0
            func change() throws {
                step += 1
                let command = ControlCommand.move(item: .position(gallery: "g", index: middle), to: nil, at: step % 2 == 0 ? middle - 1 : middle + 1)
                #expect(try ControlCommands.execute(command, on: node) == .done)
            }
            /// Copies of the item records over `changes` changes, and the CPU per change.
            func block(_ waitForWatcher: (Int) -> Bool) throws -> (copies: Int, ms: Double) {
                var copies = 0
                let cpu = Self.processCPUSeconds()
                for index in 0..<changes {
                    let before = Self.itemStorage(node)
                    try change()
                    #expect(waitForWatcher(index + 1), "the watcher was told of change \(index + 1)")
                    if Self.itemStorage(node) != before { copies += 1 }
                }
                return (copies, (Self.processCPUSeconds() - cpu) * 1_000 / Double(changes))
            }
            for _ in 0..<5 { try change() }
            let alone = try block { _ in true }
            let feed = ControlWatchFeed(node: node)
            let sink = CountingSink()
            let token = try #require(feed.add(sink, request: 1, gallery: "g"))
            defer { feed.remove(token) }
            #expect(sink.wait(for: 1))
            let watched = try block { sink.wait(for: 1 + $0) }
            return (alone.copies, watched.copies, alone.ms, watched.ms)
        }

        @Test("a watched change copies none of the replica's item records, with 100 items or 100,000")
        func watchedChangesMutateInPlace() throws {
            for count in (ProcessInfo.processInfo.environment["WATCH_COST_ITEMS"].map { [Int($0) ?? 100] } ?? [100, 100_000]) {
                let figures = try measure(items: count)
                print("watch cost, \(count) items: \(figures.copiesAlone) / \(figures.copiesWatched) copies of the item records,",
                      "\(String(format: "%.3f", figures.msAlone)) / \(String(format: "%.3f", figures.msWatched)) ms CPU per change (alone / watched)")
                #expect(figures.copiesAlone == 0, "\(count) items, unwatched: \(figures.copiesAlone) copies")
                #expect(figures.copiesWatched == 0, "\(count) items, watched: \(figures.copiesWatched) copies")
            }
        }
    }
}

import Foundation
@testable import GalleryControl
import GalleryIO
import GalleryModel
import GalleryNode
import GalleryWeb
import GalleryWire
import Synchronization
import Testing

extension NodeSuites {
    /// Watchers cost per change: `watch` and the web event stream send what changed, never the
    /// gallery, so that a change costs as much in a gallery of 100,000 items as in one of 100;
    /// and a watcher that falls behind or comes late still holds the gallery as it is.
    @Suite("Watch deltas")
    struct WatchDeltaTests {
        /// A node with one gallery "g" of `count` items, its control socket and its web port.
        private final class WatchedNode: Sendable {
            let cluster: TestCluster
            let directory: URL
            let control: ControlServer
            let web: WebServer
            let token: String

            init(items count: Int) throws {
                // A long peer timeout: the watcher decodes the first answer (100,000 items, in a
                // debug build) without answering heartbeats meanwhile.
                cluster = try TestCluster(["watched"], peerTimeout: .seconds(120))
                let node = cluster.nodes[0]
                try node.perform { replica in
                    try replica.createGallery("g")
                    let drafts = (0..<count).map { ItemDraft(fields: [.title: .text("i\($0)")]) }
                    try replica.insertRun(drafts, into: "g", at: 0)
                }
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-watch-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                control = try ControlServer(node: node, path: ControlClient.socketPath(of: directory))
                web = try WebServer(node: node, directory: directory, listen: Endpoint(host: "127.0.0.1", port: 0),
                                    temporaryDirectory: directory.appendingPathComponent("tmp"))
                token = try String(contentsOf: directory.appendingPathComponent("http-token"), encoding: .utf8)
                    .split(separator: "\n").first.map(String.init) ?? ""
            }

            var node: SyncNode { cluster.nodes[0] }

            func tearDown() {
                web.stop()
                control.stop()
                cluster.stop()
                try? FileManager.default.removeItem(at: directory)
            }
        }

        /// What a watcher received: bytes and events after its first answer.
        private final class Tally: Sendable {
            private let state = Mutex<(bytes: Int, events: Int, answers: Int)>((0, 0, 0))
            private let first = Mutex(0)
            /// The size of the first answer (the listing).
            var firstBytes: Int {
                get { first.withLock { $0 } }
                set { first.withLock { $0 = newValue } }
            }
            func add(bytes: Int, events: Int) { state.withLock { $0 = ($0.bytes + bytes, $0.events + events, $0.answers + 1) } }
            var events: Int { state.withLock { $0.events } }
            var bytes: Int { state.withLock { $0.bytes } }
            var answers: Int { state.withLock { $0.answers } }

            /// Waits until `count` events have come; false on timeout.
            func wait(for count: Int, timeout: TimeInterval = 20) -> Bool {
                let deadline = Date().addingTimeInterval(timeout)
                while events < count {
                    if Date() > deadline { return false }
                    Thread.sleep(forTimeInterval: 0.002)
                }
                return true
            }
        }

        /// Bytes per change of `watch` and of the web event stream, over `changes` single-item
        /// moves in the middle of a gallery of `count` items, each waited for by both watchers
        /// (so that no answer covers two changes).
        private func bytesPerChange(items count: Int, changes: Int = 40) throws -> (watch: Double, web: Double, firstAnswer: Int) {
            let fixture = try WatchedNode(items: count)
            defer { fixture.tearDown() }
            let watch = Tally()
            let web = Tally()
            let directory = fixture.directory
            let watcher = Thread {
                var answered = false
                try? ControlClient.stream(ControlRequest(id: 1, command: .watch(gallery: "g")), to: directory, timeout: .seconds(600)) { response in
                    let bytes = (try? JSONEncoder().encode(response).count) ?? 0
                    if !answered {
                        answered = true
                        watch.firstBytes = bytes
                        watch.add(bytes: 0, events: 0)
                        return true
                    }
                    watch.add(bytes: bytes, events: response.reply?.events?.count ?? 0)
                    return watch.events < changes
                }
            }
            watcher.start()
            let stream = try Connector.connect(to: fixture.web.endpoint)
            defer { stream.close() }
            let host = "127.0.0.1:\(fixture.web.endpoint.port)"
            _ = stream.output.writeAll(Array("GET /api/events HTTP/1.1\r\nHost: \(host)\r\nCookie: gallery_session=\(fixture.token)\r\n\r\n".utf8))
            // The stream's first bytes (`retry:`) say it is open: a change before would not be in it.
            let webOpen = Mutex(false)
            let reader = Thread {
                var text = ""
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while web.events < changes {
                    let read = stream.input.read(&buffer, maxLength: buffer.count)
                    if read <= 0 { return }
                    text += String(decoding: buffer[0..<read], as: UTF8.self)
                    if text.contains("retry:") { webOpen.withLock { $0 = true } }
                    // Whole messages only: each ends with a blank line.
                    while let end = text.range(of: "\n\n") {
                        let message = String(text[..<end.upperBound])
                        text.removeSubrange(..<end.upperBound)
                        if message.contains("event: changes\n") { web.add(bytes: message.utf8.count, events: 1) }
                    }
                }
            }
            reader.start()
            #expect(waitForAnswer(watch), "the watch was answered")
            let openBy = Date().addingTimeInterval(60)
            while !webOpen.withLock({ $0 }) && Date() < openBy { Thread.sleep(forTimeInterval: 0.005) }
            #expect(webOpen.withLock { $0 }, "the event stream was opened")
            let middle = count / 2
            let cpuBefore = Self.processCPUSeconds()
            let started = Date()
            for change in 0..<changes {
                let command = ControlCommand.move(item: .position(gallery: "g", index: middle), to: nil, at: middle + 1 - change % 2 * 2)
                #expect(try ControlCommands.execute(command, on: fixture.node) == .done)
                let told = watch.wait(for: change + 1) && web.wait(for: change + 1)
                #expect(told, "watch got \(watch.events), the event stream \(web.events) of \(change + 1) changes")
                if !told { break }
            }
            // For BENCHMARKS.md: the whole process (node, feed, both watchers), not asserted.
            let cpu = (Self.processCPUSeconds() - cpuBefore) / Double(changes) * 1_000
            let wall = Date().timeIntervalSince(started) / Double(changes) * 1_000
            print("watch deltas, \(count) items: \(String(format: "%.2f", cpu)) ms CPU and \(String(format: "%.2f", wall)) ms per change;",
                  "watch \(watch.bytes / changes) B, event stream \(web.bytes / changes) B per change; listing \(watch.firstBytes) B")
            #expect(watch.events == changes && watch.answers == changes + 1, "one answer per change: \(watch.answers - 1) for \(watch.events)")
            return (Double(watch.bytes) / Double(changes), Double(web.bytes) / Double(changes), watch.firstBytes)
        }

        /// CPU seconds of this process so far, user and system.
        private static func processCPUSeconds() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }

        /// Waits until the watch's first answer (the listing) came.
        private func waitForAnswer(_ tally: Tally) -> Bool {
            let deadline = Date().addingTimeInterval(60)
            while tally.answers == 0 {
                if Date() > deadline { return false }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return true
        }

        @Test("a change costs watch and the event stream the same bytes with 100 and 100,000 items (within 20%)")
        func costPerChangeIndependentOfSize() throws {
            let small = try bytesPerChange(items: 100)
            let large = try bytesPerChange(items: 100_000)
            // The listing comes once, at the start: it is what grew with the gallery.
            #expect(large.firstAnswer > 100 * small.firstAnswer, "first answers: \(small.firstAnswer) and \(large.firstAnswer) bytes")
            #expect(large.watch <= small.watch * 1.2 && small.watch <= large.watch * 1.2,
                    "watch: \(small.watch) bytes per change with 100 items, \(large.watch) with 100,000")
            #expect(large.web <= small.web * 1.2 && small.web <= large.web * 1.2,
                    "event stream: \(small.web) bytes per change with 100 items, \(large.web) with 100,000")
            #expect(large.watch < 1_000 && large.web < 2_000, "watch \(large.watch), event stream \(large.web) bytes per change")
        }

        /// A watcher that applies every answer it is sent to its view, as `gallery watch` does.
        private final class ViewSink: WatchSink {
            private let view: Mutex<WatchView>

            init(gallery: String?) {
                view = Mutex(WatchView(gallery: gallery, ordered: true))
            }

            func send(_ response: ControlResponse) {
                view.withLock { view in
                    switch response.reply {
                    case .galleries(let listing)?:
                        view.start(listing)
                    case .changes(let events)?:
                        _ = view.apply(events)
                    default:
                        Issue.record("unexpected answer \(response)")
                    }
                }
            }

            /// `id title state` of every item shown, gallery by gallery.
            var shown: [String] {
                view.withLock { $0.galleries.flatMap { listing in listing.items.map { "\(listing.gallery) \($0.id) \($0.title ?? "-") \($0.state)" } } }
            }
        }

        /// `id title state` of every item of `gallery` (nil: all), as the node holds them.
        private static func held(_ node: SyncNode, _ gallery: String?) -> [String] {
            node.read { replica in
                ((try? ControlCommands.listings(replica, gallery: gallery, transfers: nil)) ?? []).flatMap { listing in
                    listing.items.map { "\(listing.gallery) \($0.id) \($0.title ?? "-") \($0.state)" }
                }
            }
        }

        @Test("watchers that fall behind, come late or watch one gallery end with the node's view: a listing first, deltas after")
        func fallingBehindAndLateWatchers() throws {
            let cluster = try TestCluster(["watched"])
            defer { cluster.stop() }
            let node = cluster.nodes[0]
            try node.perform { replica in
                try replica.createGallery("g")
                try replica.createGallery("h")
                try replica.insertRun((0..<200).map { ItemDraft(fields: [.title: .text("g\($0)")]) }, into: "g", at: 0)
                try replica.insertRun((0..<50).map { ItemDraft(fields: [.title: .text("h\($0)")]) }, into: "h", at: 0)
            }
            // A subscription one event deep falls behind at once; past 30 ops it is sent the listing.
            let feed = ControlWatchFeed(node: node, eventLimit: 1, maximumCatchUp: 30)
            let early = ViewSink(gallery: "g")
            let all = ViewSink(gallery: nil)
            let late = ViewSink(gallery: "h")
            var tokens = [try #require(feed.add(early, request: 1, gallery: "g")), try #require(feed.add(all, request: 2, gallery: nil))]
            #expect(feed.add(ViewSink(gallery: "nowhere"), request: 3, gallery: "nowhere") == nil)

            let workers = (0..<4).map { worker in
                Thread {
                    var random = SystemRandomNumberGenerator()
                    for step in 0..<150 {
                        let gallery = Bool.random(using: &random) ? "g" : "h"
                        let count = node.read { (try? $0.count(in: gallery)) ?? 0 }
                        guard count > 2 else { continue }
                        let index = Int.random(in: 0..<(count - 2), using: &random)
                        let command: ControlCommand
                        switch step % 5 {
                        case 0: command = .move(items: [.position(gallery: gallery, index: index), .position(gallery: gallery, index: index + 1)],
                                                to: gallery == "g" ? "h" : "g", at: 0)
                        case 1: command = .delete([.position(gallery: gallery, index: index)])
                        case 2: command = .update(UpdateRequest(items: [.position(gallery: gallery, index: index)], title: "w\(worker)s\(step)"))
                        case 3: command = .add(AddRequest(sources: [.url("https://example.org/\(worker)-\(step).png")], gallery: gallery, index: index))
                        default: command = .move(item: .position(gallery: gallery, index: index), to: nil, at: count - 2)
                        }
                        // Two workers may race for one place: a refusal is fine, it changed nothing.
                        _ = try? ControlCommands.execute(command, on: node)
                    }
                }
            }
            for worker in workers { worker.start() }
            Thread.sleep(forTimeInterval: 0.2)
            tokens.append(try #require(feed.add(late, request: 4, gallery: "h")))
            defer { for token in tokens { feed.remove(token) } }
            while workers.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.01) }
            // One change more, so that the feed reads past the last batch whatever it dropped.
            try node.perform { try $0.createGallery("last") }

            let deadline = Date().addingTimeInterval(20)
            func settled() -> Bool {
                early.shown == Self.held(node, "g") && late.shown == Self.held(node, "h") && all.shown == Self.held(node, nil)
            }
            while !settled() && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            #expect(early.shown == Self.held(node, "g"))
            #expect(late.shown == Self.held(node, "h"))
            #expect(all.shown == Self.held(node, nil))
            #expect(all.shown.count > 100, "\(all.shown.count) items left")
        }
    }
}

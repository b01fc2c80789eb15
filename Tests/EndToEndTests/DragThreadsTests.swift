import Foundation
import GalleryTestSupport
import Synchronization
import Testing

/// What a large drag costs the node that receives it: downloads, the transfers' passes, thumbnails,
/// thumbnail replication, `holds` answers and the op log mirror's fsync share the node's fixed pool
/// of workers (`NodeWorkPool`), so the thread count stays small whatever the number of items
/// dragged, and the memory the drag used is handed back.
@Suite("drag threads", .serialized)
struct DragThreadsTests {
    @Test("a drag of 1,000 items: every item committed, in drop order, with at most 16 threads in the receiving node and its memory back afterwards")
    func boundedThreads() throws {
        #if os(Linux)
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("bob")
        try space.start("alice", peers: ["bob"])
        let count = 1_000
        let paths = try (0..<count).map { try space.image("i\($0).png", bytes: 4_096 + $0) }
        let added = try space.gallery("alice", ["add"] + paths)
        #expect(added.status == 0, "\(added.stderr)")
        let ids = added.stdout.split(separator: "\n").map(String.init)
        #expect(try space.waitUntil(timeout: 60) { try space.column("id", on: "bob", "alice") == ids })
        let bob = try #require(space.process("bob")).processID
        let before = IdlePeersTests.threadCount(bob)
        let residentBefore = IdlePeersTests.residentBytes(bob)
        let anonymousBefore = Self.anonymousBytes(bob)

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
        // The thumbnails of what arrived are made after the commits: sampled until they are.
        _ = space.waitUntil(timeout: 60) { IdlePeersTests.threadCount(bob) <= before }
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
        // Issue 27's bound: 16 threads at any moment, whatever was dragged (1,012 for 1,000 items
        // with a thread per download; 18-19 with the thumbnails, the mirror and the holds on
        // Dispatch queues of their own).
        #expect(peak <= 16, "\(peak) threads: \(names.joined(separator: ", "))")
        // The memory the drag used is handed back once the workers are idle (the pool's threads
        // end after 2 s without work): what stays is what 1,000 more items cost the replica.
        _ = space.waitUntil(timeout: 10) { IdlePeersTests.threadCount(bob) <= before }
        let residentAfter = IdlePeersTests.residentBytes(bob)
        let anonymousAfter = Self.anonymousBytes(bob)
        print("drag memory: \(residentBefore >> 10) KiB resident before, \(residentAfter >> 10) KiB after; "
            + "anonymous \(anonymousBefore >> 10) KiB before, \(anonymousAfter >> 10) KiB after")
        #expect(residentAfter <= residentBefore + residentBefore / 4, "\(residentBefore >> 10) KiB before, \(residentAfter >> 10) KiB after")
        #endif
    }

    /// The process's anonymous resident memory (heap, stacks), in bytes: RSS less the file pages
    /// (code touched for the first time, mapped files).
    static func anonymousBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return -1 }
        return kilobytes << 10
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

import Foundation
import GalleryTestSupport
import Synchronization
import Testing

/// What a drag of many small items leaves in the memory of the node that receives it: a new fetch
/// starts only while the bytes asked for and not yet stored stay below the backlog bound, so the
/// drag is never queued whole in memory when the network outruns the disk, and the memory freed
/// is handed back when the last download ends (`MallocArenas.releaseFreed`).
@Suite("drag memory", .serialized)
struct DragMemoryTests {
    @Test("a drag of 600 items of 100 KiB: the receiver's heap never grows by half the drag, and is back within 8 MiB afterwards")
    func boundedMemory() throws {
        #if os(Linux)
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("bob")
        try space.start("alice", peers: ["bob"])
        let count = 600, bytes = 100 << 10
        let paths = try (0..<count).map { try space.image("m\($0).png", bytes: bytes) }
        let added = try space.gallery("alice", ["add"] + paths)
        #expect(added.status == 0, "\(added.stderr)")
        let ids = added.stdout.split(separator: "\n").map(String.init)
        #expect(try space.waitUntil(timeout: 60) { try space.column("id", on: "bob", "alice") == ids })
        let bob = try #require(space.process("bob")).processID
        let threadsBefore = IdlePeersTests.threadCount(bob)
        let before = Self.anonymousBytes(bob)

        // Sample bob's heap every 2 ms while the drag runs.
        let most = Mutex(0)
        let done = Mutex(false)
        let sampler = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !done.withLock({ $0 }) {
                let anonymous = Self.anonymousBytes(bob)
                most.withLock { $0 = max($0, anonymous) }
                usleep(2_000)
            }
            sampler.signal()
        }
        let drag = try GalleryProcess.run(["-C", space.directory("bob").path, "drag", "alice", "--to", "bob", "--wait"], timeout: 600)
        done.withLock { $0 = true }
        sampler.wait()
        #expect(drag.status == 0, "\(drag.stderr.suffix(500))")
        let items = try #require(try space.items(on: "bob", "bob"))
        #expect(items.count == count)
        #expect(items.allSatisfy { $0["state"] as? String == "ready" })
        // The stages and command threads end after an idle spell; their stacks go with them.
        _ = space.waitUntil(timeout: 20) { IdlePeersTests.threadCount(bob) <= threadsBefore }
        let after = Self.anonymousBytes(bob)
        let peak = most.withLock { $0 }
        print("drag memory: anonymous \(before >> 10) KiB before, at most \(peak >> 10) KiB during, \(after >> 10) KiB after a drag of \((count * bytes) >> 20) MiB")
        #expect(before > 0 && after > 0)
        #expect(peak - before < count * bytes / 2, "the heap grew by \((peak - before) >> 20) MiB during the drag")
        #expect(after - before < 8 << 20, "the heap kept \((after - before) >> 20) MiB after the drag")
        #endif
    }

    /// The anonymous part of the process's resident set (`RssAnon`: heap and stacks, not the
    /// program's code), in bytes; -1 when unknown.
    static func anonymousBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
              let kilobytes = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") else { return -1 }
        return kilobytes << 10
    }
}

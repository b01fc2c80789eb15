import Foundation
import GalleryModel
@testable import GalleryNode
import Synchronization
import Testing

extension NodeSuites {
    /// The group commit's writer is one parked thread of the node's, not a thread started per
    /// batch: a lone editor's op pays a wake-up on its way to the disk, not a thread's start.
    @Suite("Group commit writer thread")
    struct GroupCommitWriterThreadTests {
        /// A store that records the kernel's ID of every thread that stored a batch.
        final class ThreadRecordingStore: OpStore {
            let threads = Mutex<[String: Int]>([:])
            let batches = Atomic<Int>(0)

            func store(_ ops: [Op]) throws {
                // `/proc/thread-self` names the calling thread by its kernel ID, which the kernel
                // does not hand to a new thread again soon (unlike `pthread_self()`'s address).
                let thread = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "?"
                threads.withLock { $0[thread, default: 0] += 1 }
                batches.add(1, ordering: .relaxed)
            }
        }

        @Test("1,000 commands one after the other: every batch stored by the same thread")
        func writerThreadIsReused() throws {
            let store = ThreadRecordingStore()
            let configuration = NodeConfiguration(
                name: "writer-thread", secret: GroupCommitTests.secret, listen: nil, log: .silent, store: store)
            let node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: "writer-thread")))
            try node.start()
            defer { node.stop() }
            try node.perform { try $0.createGallery("g") }
            for index in 0..<1_000 {
                try node.perform { try $0.insert([.titled("i\(index)")], into: "g", at: 0) }
            }
            let threads = store.threads.withLock { $0 }
            #expect(store.batches.load(ordering: .relaxed) == 1_001, "each perform waited for its own batch")
            #expect(threads.keys.allSatisfy { $0 != "?" }, "the store could not name its thread")
            // One thread, parked between batches (`GroupCommit.writerIdleTimeout`, 10 s: never
            // reached between two commands here). A thread per batch was 1,001 threads.
            #expect(threads.count == 1, "\(threads.count) threads stored the 1,001 batches: \(threads.values.sorted().suffix(5))")
        }
    }
}

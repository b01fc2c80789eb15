import Foundation
import GalleryModel
import GalleryNode
import Synchronization
import Testing

extension NodeSuites {
    /// The node's group commit: one store (one fsync) for every op waiting, and nothing leaves the
    /// node before it is durable.
    @Suite("Group commit")
    struct GroupCommitTests {
        static let secret = Array("group commit secret".utf8)

        /// A store that counts its batches and ops, takes `delay` per batch (an fsync), and can be
        /// held shut.
        final class CountingStore: OpStore, @unchecked Sendable {
            private let condition = NSCondition()
            private var open = true
            private var batches = 0
            private var ops = 0
            private var waiting = 0
            let delay: TimeInterval

            init(delay: TimeInterval = 0) { self.delay = delay }

            func store(_ ops: [Op]) throws {
                condition.withLock {
                    waiting += 1
                    condition.broadcast()
                    while !open { condition.wait() }
                    waiting -= 1
                }
                if delay > 0 { Thread.sleep(forTimeInterval: delay) }
                condition.withLock {
                    batches += 1
                    self.ops += ops.count
                }
            }

            /// Holds every store until `release`.
            func hold() { condition.withLock { open = false } }

            /// Lets the stores through.
            func release() {
                condition.withLock {
                    open = true
                    condition.broadcast()
                }
            }

            /// Waits until a store is held; true when one is.
            func waitUntilHeld(timeout: TimeInterval = 5) -> Bool {
                let deadline = Date().addingTimeInterval(timeout)
                return condition.withLock {
                    while waiting == 0 { if !condition.wait(until: deadline) { return waiting > 0 } }
                    return true
                }
            }

            var counts: (batches: Int, ops: Int) { condition.withLock { (batches, ops) } }
        }

        static func makeNode(_ name: String, store: (any OpStore)? = nil) throws -> SyncNode {
            let configuration = NodeConfiguration(
                name: name, secret: secret, heartbeatInterval: .milliseconds(100), peerTimeout: .seconds(3),
                reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)), log: .silent, store: store)
            let node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: name)))
            try node.start()
            return node
        }

        @Test("Concurrent commands share fsyncs: far fewer stores than ops, every op stored once")
        func concurrentPerformsShareStores() throws {
            // 1 ms per store, like a fast fsync: one store per op would take 640 of them.
            let store = CountingStore(delay: 0.001)
            let node = try Self.makeNode("grouped", store: store)
            defer { node.stop() }
            try node.perform { try $0.createGallery("g") }
            let threads = 32
            let perThread = 20
            let failures = Atomic<Int>(0)
            let done = DispatchGroup()
            for thread in 0..<threads {
                done.enter()
                Thread.detachNewThread {
                    for index in 0..<perThread {
                        do {
                            try node.perform { try $0.insert([.titled("\(thread)-\(index)")], into: "g", at: 0) }
                        } catch {
                            failures.add(1, ordering: .relaxed)
                        }
                    }
                    done.leave()
                }
            }
            #expect(done.wait(timeout: .now() + 60) == .success)
            let failed = failures.load(ordering: .relaxed)
            #expect(failed == 0)
            let (batches, ops) = store.counts
            #expect(ops == threads * perThread + 1, "every op stored exactly once")
            #expect(batches * 4 < ops, "\(batches) stores for \(ops) ops: the group commit does not group")
            #expect(node.storedBatches == batches)
        }

        @Test("An op is sent, observed and acknowledged only once durable: a held store holds them all")
        func nothingLeavesBeforeDurable() throws {
            let store = CountingStore()
            let writer = try Self.makeNode("writer", store: store)
            let reader = try Self.makeNode("reader")
            defer {
                store.release()
                writer.stop()
                reader.stop()
            }
            try reader.connect(to: writer.endpoint!)
            #expect(reader.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            #expect(writer.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            let observed = Atomic<Int>(0)
            writer.observe { ops in observed.add(ops.count, ordering: .sequentiallyConsistent) }

            store.hold()
            let acknowledged = Atomic<Bool>(false)
            let finished = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                _ = try? writer.perform { try $0.createGallery("held") }
                acknowledged.store(true, ordering: .sequentiallyConsistent)
                finished.signal()
            }
            #expect(store.waitUntilHeld(), "the writer never tried to store the op")
            // Applied here, but held by the store: no peer, observer or command sees it.
            #expect(writer.wait(timeout: .seconds(5)) { $0.hasGallery("held") })
            #expect(!reader.wait(timeout: .milliseconds(300)) { $0.hasGallery("held") })
            let acknowledgedEarly = acknowledged.load(ordering: .sequentiallyConsistent)
            let observedEarly = observed.load(ordering: .sequentiallyConsistent)
            #expect(!acknowledgedEarly)
            #expect(observedEarly == 0)

            store.release()
            #expect(finished.wait(timeout: .now() + 5) == .success)
            #expect(reader.wait(timeout: .seconds(5)) { $0.hasGallery("held") })
            let deadline = Date().addingTimeInterval(5)
            while observed.load(ordering: .sequentiallyConsistent) == 0 && Date() < deadline { usleep(1_000) }
            let observedLate = observed.load(ordering: .sequentiallyConsistent)
            #expect(observedLate == 1)
        }
    }
}

extension NodeSuites.GroupCommitTests {
    /// A large catch-up goes out a batch per turn of the loop: commands and live ops to other peers
    /// go on meanwhile, and the peer being caught up still gets every op in causal order.
    @Test("A catch-up in small batches while ops are made: the new peer gets everything, in causal order")
    func catchUpInBatchesKeepsOrder() throws {
        func node(_ name: String) throws -> SyncNode {
            // 2 KiB batches: a catch-up of thousands of ops takes hundreds of loop turns.
            let configuration = NodeConfiguration(
                name: name, secret: Self.secret, heartbeatInterval: .milliseconds(100), peerTimeout: .seconds(3),
                reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)),
                catchUpBatchBytes: 2_048, log: .silent, store: CountingStore())
            let node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: name)))
            try node.start()
            return node
        }
        let source = try node("source")
        let live = try node("live")
        let late = try node("late")
        defer {
            source.stop()
            live.stop()
            late.stop()
        }
        try live.connect(to: source.endpoint!)
        #expect(live.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
        try source.perform { try $0.createGallery("g") }
        for batch in 0..<40 {
            try source.perform { replica in
                for index in 0..<100 { try replica.insert([.titled("\(batch)-\(index)")], into: "g", at: 0) }
            }
        }
        #expect(source.read { $0.encodedLogSize } > 40 * 2_048, "a catch-up of dozens of batches")
        // The late peer connects while ops keep coming: some reach it in the catch-up, the rest live.
        let making = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for index in 0..<200 {
                _ = try? source.perform { try $0.insert([.titled("during-\(index)")], into: "g", at: 0) }
            }
            making.signal()
        }
        try late.connect(to: source.endpoint!)
        #expect(making.wait(timeout: .now() + 30) == .success)
        let target = source.read { $0.version }
        #expect(late.wait(timeout: .seconds(20)) { $0.version.includes(target) })
        #expect(live.wait(timeout: .seconds(20)) { $0.version.includes(target) })
        // Nothing is left waiting for a dependency, the one session stayed up through the catch-up,
        // and it ended with `caught_up`.
        #expect(late.read { $0.bufferedCount } == 0)
        #expect(late.health.missingOps.isEmpty)
        #expect(late.waitForPeers(timeout: .seconds(5)) { $0.count == 1 && $0.first?.syncedUpTo != nil })
        #expect(late.read { $0.opCount } == source.read { $0.opCount })
    }
}

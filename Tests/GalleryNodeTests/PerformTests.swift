import Foundation
import GalleryModel
import Synchronization
import Testing

extension NodeSuites {
    /// Local commands through `SyncNode.perform`.
    @Suite("Perform")
    struct PerformTests {
        @Test("Ops made before a command in the closure throws are still stored and sent")
        func opsBeforeAThrowAreKept() throws {
            let cluster = try TestCluster(["a", "b"], peers: [1: [0]])
            defer { cluster.stop() }
            cluster.expectConvergence()
            let stored = StoredOps()
            cluster.nodes[0].observe { ops in stored.add(ops.count) }
            #expect(throws: ModelError.self) {
                try cluster.nodes[0].perform { replica in
                    try replica.createGallery("kept")
                    try replica.insert([.titled("x")], into: "no such gallery", at: 0)
                }
            }
            // Observers get the ops once durable, on their own thread.
            let deadline = ContinuousClock.now + .seconds(5)
            while stored.count < 1 && ContinuousClock.now < deadline { usleep(1_000) }
            #expect(stored.count == 1)
            cluster.expectConvergence()
            #expect(cluster.nodes[1].read { $0.hasGallery("kept") })
        }
    }
}

/// Counts ops seen by an observer.
final class StoredOps: Sendable {
    private let total = Mutex<Int>(0)
    func add(_ count: Int) { total.withLock { $0 += count } }
    var count: Int { total.withLock { $0 } }
}

import Foundation
import GalleryModel
@testable import GalleryStorage
import GalleryTestSupport
import Testing

extension NodeStorageTests {
    @Test("A log written before the counter bound, holding an op 2^32 past the clock, starts: that op is dropped as a peer would refuse it, the rest replays, and the node can author ops")
    func logFromBeforeTheCounterBound() throws {
        let ops = Self.ops
        try StorageFixtures.withScratchDirectory { dir in
            let node = try Node(dir)
            try node.apply(ops[..<200])
            let clock = node.replica.lamportClock
            // What an older node accepted and logged: one op far past the bound, then ordinary ops.
            let far = Op(id: OpID(counter: (1 << 48) - 1, replica: ReplicaID(0xBAD)), previous: 0,
                         action: .createGallery(name: "frozen"))
            try node.storage.persist([far])
            try node.apply(ops[200..<400])
            try node.storage.close()

            let restarted = try Node(dir)
            #expect(restarted.replica.opCount == node.replica.opCount)
            #expect(!restarted.replica.hasGallery("frozen"))
            #expect(restarted.replica.lamportClock < clock + Replica.maxCounterLead)
            #expect(throws: Never.self) { try Node.nextOps(of: restarted.replica) }
            try restarted.storage.close()
        }
    }
}

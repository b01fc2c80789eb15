import Foundation
import GalleryIO
import GalleryModel
@testable import GalleryNode
import GalleryWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The storage health component alone (`StorageHealth`): when a fault begins, changes or stays,
/// how a failed system call is described, and which divergent ops `status` keeps.
@Suite struct StorageHealthTests {
    @Test func aFaultBeginsOnceChangesWithItsReasonAndEndsWhenCleared() {
        var health = StorageHealth()
        let full = StorageError.io(operation: "write", path: "/srv/node/ops.log", errno: ENOSPC)
        let reason = "cannot write to /srv/node: \(String(cString: strerror(ENOSPC)))"
        #expect(health.storingFailed(full) == .began(reason))
        #expect(health.fault == reason)
        #expect(health.storingFailed(full) == .unchanged)
        let readOnly = StorageError.io(operation: "fsync", path: "/srv/node/ops.log", errno: EROFS)
        #expect(health.storingFailed(readOnly) == .changed("cannot write to /srv/node: \(String(cString: strerror(EROFS)))"))
        health.fault = nil
        #expect(health.storingFailed(full) == .began(reason), "a new fault after storing worked again")
    }

    @Test func otherErrorsAreDescribedByTheirText() {
        struct Odd: Error, LocalizedError { var errorDescription: String? { "odd" } }
        #expect(StorageHealth.describe(Odd()) == "cannot store ops: odd")
    }

    @Test func theLastDivergentOpsAreKeptAndAllAreCounted() throws {
        var replica = Replica(id: ReplicaID(deriving: "health"))
        try replica.createGallery("g")
        var health = StorageHealth()
        let total = DivergentOp.kept + 5
        for index in 0..<total {
            try replica.insert([.titled("i\(index)")], into: "g", at: 0)
            let op = replica.lastOps(1)[0]
            let entry = health.divergent(op, from: "peer \(index)", held: index == 0 ? nil : op)
            #expect(entry.id == op.id.description && entry.peer == "peer \(index)")
            #expect((entry.held == nil) == (index == 0))
        }
        #expect(health.divergentOpCount == total)
        #expect(health.divergentOps.count == DivergentOp.kept)
        #expect(health.divergentOps.first?.peer == "peer 5" && health.divergentOps.last?.peer == "peer \(total - 1)")
    }
}

import GalleryModel
@testable import GalleryNode
import Testing

/// The durability component alone: which batches, progress and waiting commands a report of the
/// group-commit writer releases, and the durable vector it may claim.
@Suite struct DurabilityTests {
    /// A replica with one gallery, and a function that applies `count` inserts and returns them.
    static func source() throws -> (Replica, (inout Replica, Int) throws -> [Op]) {
        var replica = Replica(id: ReplicaID(deriving: "durability"))
        try replica.createGallery("g")
        return (replica, { replica, count in
            for index in 0..<count { try replica.insert([.titled("i\(index)")], into: "g", at: 0) }
            return replica.lastOps(count)
        })
    }

    @Test func batchesAreReleasedInLogOrderAsFarAsReported() throws {
        var (replica, make) = try Self.source()
        var durability = Durability(replica: replica)
        #expect(durability.isIdle && durability.count == replica.opCount)
        let first = try make(&replica, 2)
        durability.submitted(first, end: replica.opCount, source: nil)
        let firstEnd = replica.opCount
        let second = try make(&replica, 3)
        durability.submitted(second, end: replica.opCount, source: 7)
        #expect(!durability.isIdle)

        let releasedFirst = durability.becameDurable(upTo: firstEnd)
        let released = try #require(releasedFirst)
        #expect(released.batches.map(\.ops.count) == [2])
        #expect(durability.count == firstEnd && !durability.isIdle)
        // A report that brings nothing new releases nothing.
        let again = durability.becameDurable(upTo: firstEnd)
        #expect(again == nil)

        let releasedRest = durability.becameDurable(upTo: replica.opCount)
        let rest = try #require(releasedRest)
        #expect(rest.batches.map(\.source) == [7])
        #expect(durability.isIdle)
        #expect(durability.version == replica.version)
        #expect(durability.total == replica.version.total)
    }

    @Test func waitersAndProgressWaitForTheirOps() throws {
        var (replica, make) = try Self.source()
        var durability = Durability(replica: replica)
        // Progress with nothing in flight is published at once.
        let publishedAtOnce = !durability.hold([], until: replica.opCount)
        #expect(publishedAtOnce)
        durability.submitted(try make(&replica, 1), end: replica.opCount, source: nil)
        let firstEnd = replica.opCount
        let early = durability.ticket(until: firstEnd)
        let held = durability.hold([], until: firstEnd)
        #expect(held)
        durability.submitted(try make(&replica, 1), end: replica.opCount, source: nil)
        let late = durability.ticket(until: replica.opCount)

        let releasedFirst = durability.becameDurable(upTo: firstEnd)
        let released = try #require(releasedFirst)
        #expect(released.tickets.count == 1 && released.tickets[0] === early)
        #expect(released.progress.count == 1)
        // Storing fails: the command still waiting is told, the ops stay in flight.
        let failed = durability.takeWaiters()
        #expect(failed.count == 1 && failed[0] === late)
        #expect(!durability.isIdle)
        let releasedLast = durability.becameDurable(upTo: replica.opCount)
        #expect(releasedLast?.tickets.isEmpty == true)
    }
}

import GalleryModel
@testable import GalleryWire
import Testing

/// A beacon's numbers are bounded where they are decoded, so that the relay tree can count on
/// from them (`round` + 1, `hops` + 1) without overflow: the largest values pass, one more is malformed.
@Suite("Tree beacon bounds")
struct TreeBeaconBoundsTests {
    static func decode(since: UInt64, round: UInt64, hops: UInt64) throws -> Message {
        let beacon = TreeBeacon(root: ReplicaID(7), since: since, round: round, hops: hops, parent: ReplicaID(9))
        return try Message(frame: Message.tree(beacon).frame)
    }

    @Test("since and round up to 2^62 and hops up to 2^16 decode; one more, or 2^64 - 1, is malformed")
    func bounds() throws {
        let time = TreeBeacon.maximumTime, hops = TreeBeacon.maximumHops
        let largest = try Self.decode(since: time, round: time, hops: hops)
        #expect(largest == .tree(TreeBeacon(root: ReplicaID(7), since: time, round: time, hops: hops, parent: ReplicaID(9))))
        for (since, round, hopCount) in [(time + 1, 0, 0), (0, time + 1, 0), (0, 0, hops + 1), (.max, .max, .max), (0, .max, 0)] as [(UInt64, UInt64, UInt64)] {
            #expect(throws: WireError.self, "since \(since), round \(round), hops \(hopCount)") {
                try Self.decode(since: since, round: round, hops: hopCount)
            }
        }
    }
}

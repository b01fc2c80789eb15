@testable import GalleryModel
import Testing

/// A refused op leaves nothing behind.
@Suite("Rejected ops")
struct RejectedOpTests {
    @Test("Refused ops from 70,000 unknown replicas do not use up the table of replicas")
    func refusedOpsDoNotRegisterReplicas() throws {
        var replica = Replica(id: ReplicaID(1))
        try replica.createGallery("g")
        for raw in 2..<70_002 as Range<UInt64> {
            // Deletes an op that is not an item (the gallery creation): malformed, refused.
            let op = Op(id: OpID(counter: 1, replica: ReplicaID(raw)), previous: 0,
                        action: .delete(item: OpID(counter: 1, replica: ReplicaID(1))))
            guard case .rejected(.malformedOp) = replica.receive(op) else {
                Issue.record("op from \(raw) was not refused as malformed")
                return
            }
        }
        #expect(replica.table.ids.count == 1)
        let valid = Op(id: OpID(counter: 1, replica: ReplicaID(999_999)), previous: 0, action: .createGallery(name: "h"))
        #expect(replica.receive(valid) == .applied(released: 0))
        #expect(replica.galleries == ["g", "h"])
    }
}

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

    @Test("An op that depends on an op not older than itself is refused, held dependency or not, and nothing of it stays")
    func dependencyNotOlderRefused() throws {
        var replica = Replica(id: ReplicaID(1))
        try replica.createGallery("g")
        let item = try replica.insert([.titled("x")], into: "g", at: 0).id
        let other = ReplicaID(2)
        let refused: [Op] = [
            // A move of the item under a smaller counter than the item's.
            Op(id: OpID(counter: 1, replica: other), previous: 0, action: .move(item: item, gallery: "g", after: nil, before: nil)),
            // An insert anchored after a slot of the same counter.
            Op(id: OpID(counter: item.counter, replica: other), previous: 0, action: .insert(gallery: "g", after: item, before: nil, items: [.titled("y")])),
            // An update of an item not held yet whose counter is greater: refused at once, not buffered.
            Op(id: OpID(counter: 5, replica: other), previous: 0, action: .update(item: OpID(counter: 9, replica: ReplicaID(3)), field: .title, value: .text("z"))),
        ]
        for op in refused {
            guard case .rejected(.malformedOp(let id, let reason)) = replica.receive(op) else {
                Issue.record("\(op) was not refused as malformed")
                continue
            }
            #expect(id == op.id && reason.contains("not older"))
        }
        #expect(replica.opCount == 2 && replica.table.appliedCounter(of: other) == 0)
        #expect(try replica.items(in: "g").map(\.title) == ["x"])
        // The same move under a greater counter is applied.
        let valid = Op(id: OpID(counter: item.counter + 1, replica: other), previous: 0, action: .move(item: item, gallery: "g", after: nil, before: nil))
        #expect(replica.receive(valid) == .applied(released: 0))
    }
}

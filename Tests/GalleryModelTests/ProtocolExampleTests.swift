@testable import GalleryModel
import Testing

/// The worked example of protocol.md section 7.1 ("Order of concurrent inserts and moves"), step by
/// step: the ops each replica makes (IDs and anchors, as the document lists them) and the order every
/// replica shows after receiving the others' ops in any order.
@Suite("protocol.md worked example")
struct ProtocolExampleTests {
    static let a = ReplicaID(0x0a), b = ReplicaID(0x0b), c = ReplicaID(0x0c)

    static func id(_ counter: UInt64, _ replica: ReplicaID) -> OpID { OpID(counter: counter, replica: replica) }

    /// Every op of `ops` that `replica` lacks, received in the order given.
    static func deliver(_ ops: [Op], to replica: inout Replica) {
        for op in ops where !replica.contains(op.id) { _ = replica.receive(op) }
    }

    @Test("Three replicas: the ops' anchors and the merged order are those of protocol.md 7.1, in every delivery order")
    func workedExample() throws {
        var ra = Replica(id: Self.a), rb = Replica(id: Self.b), rc = Replica(id: Self.c)
        // Round 0: a makes the gallery and X; everyone has them.
        let round0 = [try ra.createGallery("g"), try ra.insert([.titled("X")], into: "g", at: 0)]
        #expect(round0.map(\.id) == [Self.id(1, Self.a), Self.id(2, Self.a)])
        Self.deliver(round0, to: &rb)
        Self.deliver(round0, to: &rc)

        // Round 1, concurrent: each has seen only round 0 (greatest counter 2).
        let a1 = try ra.insert([.titled("a1")], into: "g", at: 1)
        let b1 = try rb.insert([.titled("b1"), .titled("b2")], into: "g", at: 1)
        let c1 = try rc.insert([.titled("c1")], into: "g", at: 0)
        let c2 = try rc.insert([.titled("c2")], into: "g", at: 2)
        #expect(a1.id == Self.id(3, Self.a) && a1.action == .insert(gallery: "g", after: Self.id(2, Self.a), before: nil, items: [.titled("a1")]))
        #expect(b1.id == Self.id(3, Self.b) && b1.action == .insert(gallery: "g", after: Self.id(2, Self.a), before: nil, items: [.titled("b1"), .titled("b2")]))
        #expect(c1.id == Self.id(3, Self.c) && c1.action == .insert(gallery: "g", after: nil, before: Self.id(2, Self.a), items: [.titled("c1")]))
        #expect(c2.id == Self.id(4, Self.c) && c2.action == .insert(gallery: "g", after: Self.id(2, Self.a), before: nil, items: [.titled("c2")]))
        let round1 = [[a1], [b1], [c1, c2]]
        for permutation in Self.permutations(of: round1) {
            var copy = Replica(id: ReplicaID(0x0d))
            Self.deliver(round0 + permutation.flatMap { $0 }, to: &copy)
            #expect(Schedules.titles(copy) == ["c1", "X", "a1", "b1", "b2", "c2"])
        }
        for index in 0..<3 {
            let others = round1.indices.filter { $0 != index }.flatMap { round1[$0] }
            switch index {
            case 0: Self.deliver(others, to: &ra)
            case 1: Self.deliver(others, to: &rb)
            default: Self.deliver(others, to: &rc)
            }
        }
        #expect(Schedules.titles(ra) == ["c1", "X", "a1", "b1", "b2", "c2"])

        // Round 2, concurrent: each has seen rounds 0 and 1 (greatest counter 4).
        let moveA1 = try ra.move(Self.id(3, Self.a), to: "g", at: 2)
        let b3 = try rb.insert([.titled("b3")], into: "g", at: 2)
        let moveC1 = try rc.move(Self.id(3, Self.c), to: "g", at: 1)
        #expect(moveA1.id == Self.id(5, Self.a) && moveA1.action == .move(item: Self.id(3, Self.a), gallery: "g", after: Self.id(3, Self.a), before: Self.id(3, Self.b)))
        #expect(b3.id == Self.id(5, Self.b) && b3.action == .insert(gallery: "g", after: Self.id(2, Self.a), before: Self.id(3, Self.a), items: [.titled("b3")]))
        #expect(moveC1.id == Self.id(5, Self.c) && moveC1.action == .move(item: Self.id(3, Self.c), gallery: "g", after: Self.id(2, Self.a), before: Self.id(3, Self.a)))
        let expected = ["X", "b3", "c1", "a1", "b1", "b2", "c2"]
        for permutation in Self.permutations(of: [moveA1, b3, moveC1]) {
            var copy = Replica(id: ReplicaID(0x0d))
            Self.deliver(round0 + round1.flatMap { $0 } + permutation, to: &copy)
            #expect(Schedules.titles(copy) == expected)
        }
        // The next op anywhere takes counter 6: one more than the greatest counter applied.
        Self.deliver([b3, moveC1], to: &ra)
        #expect(Schedules.titles(ra) == expected)
        #expect(try ra.delete(Self.id(2, Self.a)).id == Self.id(6, Self.a))
    }

    static func permutations<T>(of elements: [T]) -> [[T]] {
        guard elements.count > 1 else { return [elements] }
        return elements.indices.flatMap { index in
            var rest = elements
            let first = rest.remove(at: index)
            return permutations(of: rest).map { [first] + $0 }
        }
    }
}

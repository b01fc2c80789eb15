@testable import GalleryModel
import Testing

/// The early-op buffer shared fairly between sources: each source's waiting ops count against its
/// own quota, go when it leaves, and never get another source's ops refused. An op held for two
/// sources counts against each of them, once against the whole buffer, and stays while either
/// remains.
@Suite("Fair buffer")
struct FairBufferTests {
    static let flooder = 1
    static let honest = 2

    /// The ops of a replica named `name` that creates gallery `name` and inserts `length` items,
    /// each titled `title` and a number. Every op but the first waits for the one before it.
    static func chain(_ name: String, length: Int, title: String = "t") throws -> [Op] {
        var replica = Replica(id: ReplicaID(deriving: name))
        try replica.createGallery(name)
        for index in 0..<length { try replica.insert([.titled("\(title)\(index)")], into: name, at: 0) }
        return replica.ops
    }

    static func predecessor(of op: Op) -> OpID {
        OpID(counter: op.previous, replica: op.id.replica)
    }

    @Test("A source past its quota of ops is refused; another source's waiting ops are not")
    func quotaPerSource() throws {
        let a = try Self.chain("A", length: 8), c = try Self.chain("C", length: 3)
        var b = Replica(id: ReplicaID(deriving: "B"), bufferLimits: BufferLimits(ops: 100, opsPerSource: 5))
        for op in a[1...5] {
            #expect(b.receive(op, from: Self.flooder) == .buffered(waitingFor: Self.predecessor(of: op)))
        }
        let before = b.bufferedBytes
        #expect(b.receive(a[6], from: Self.flooder) == .rejected(.sourceQuotaExceeded(a[6].id, source: Self.flooder)))
        #expect(b.bufferedCount(from: Self.flooder) == 5 && b.bufferedBytes == before)
        // The buffer has room for 95 more: the other source's ops wait as usual.
        for op in c[1...3] {
            #expect(b.receive(op, from: Self.honest) == .buffered(waitingFor: Self.predecessor(of: op)))
        }
        #expect(b.bufferedCount(from: Self.honest) == 3 && b.bufferedCount == 8)
        #expect(b.receive(c[0], from: Self.honest) == .applied(released: 3))
        #expect(b.bufferedCount(from: Self.honest) == 0 && b.bufferedCount == 5)
    }

    @Test("A source's quota counts bytes too")
    func byteQuotaPerSource() throws {
        let long = String(repeating: "x", count: 1_000)
        let a = try Self.chain("A", length: 3, title: long)
        var b = Replica(id: ReplicaID(deriving: "B"), bufferLimits: BufferLimits(bytesPerSource: 2_500))
        #expect(b.receive(a[1], from: Self.flooder) == .buffered(waitingFor: a[0].id))
        #expect(b.receive(a[2], from: Self.flooder) == .buffered(waitingFor: a[1].id))
        #expect(b.bufferedBytes > 2_000)
        #expect(b.receive(a[3], from: Self.flooder) == .rejected(.sourceQuotaExceeded(a[3].id, source: Self.flooder)))
        #expect(b.bufferedCount == 2)
    }

    @Test("A source's waiting ops go when it leaves, and are accepted again from another source")
    func dropOnLeave() throws {
        let a = try Self.chain("A", length: 6), c = try Self.chain("C", length: 2)
        var b = Replica(id: ReplicaID(deriving: "B"), bufferLimits: BufferLimits(ops: 100, opsPerSource: 5))
        for op in a[1...5] { b.receive(op, from: Self.flooder) }
        #expect(b.receive(a[6], from: Self.flooder) == .rejected(.sourceQuotaExceeded(a[6].id, source: Self.flooder)))
        for op in c[1...2] { b.receive(op, from: Self.honest) }
        #expect(b.missingDependencies == [a[0].id, a[1].id, a[2].id, a[3].id, a[4].id, c[0].id, c[1].id].sorted())

        #expect(b.dropWaitingOps(from: Self.flooder) == 5)
        #expect(b.bufferedCount == 2 && b.bufferedCount(from: Self.flooder) == 0)
        #expect(b.missingDependencies == [c[0].id, c[1].id].sorted())
        #expect(!b.heldOpIDs.contains(a[3].id))
        // Leaving twice forgets nothing more.
        #expect(b.dropWaitingOps(from: Self.flooder) == 0)
        #expect(b.receive(c[0], from: Self.honest) == .applied(released: 2))
        #expect(b.bufferedCount == 0 && b.bufferedBytes == 0)
        // The forgotten ops are new again: another source delivers them, in any order.
        for op in a[1...5].reversed() { b.receive(op, from: 3) }
        #expect(b.receive(a[0], from: 3) == .applied(released: 5))
        #expect(b.receive(a[6], from: 3) == .applied(released: 0))
        #expect(try b.items(in: "A").count == 6)
    }

    @Test("When the whole buffer is full, the source holding the most makes room; the largest itself is refused")
    func fullBufferEvictsTheLargestSource() throws {
        let a = try Self.chain("A", length: 7), c = try Self.chain("C", length: 3)
        var b = Replica(id: ReplicaID(deriving: "B"), bufferLimits: BufferLimits(ops: 8, opsPerSource: 7))
        for op in a[1...6] { b.receive(op, from: Self.flooder) }
        for op in c[1...2] { b.receive(op, from: Self.honest) }
        #expect(b.bufferedCount == 8)
        // The flooder, holding the most, cannot grow the full buffer.
        #expect(b.receive(a[7], from: Self.flooder) == .rejected(.bufferFull(a[7].id)))
        // The honest source, within its quota, is not refused: the flooder's ops go.
        #expect(b.receive(c[3], from: Self.honest) == .buffered(waitingFor: c[2].id))
        #expect(b.bufferedCount(from: Self.flooder) == 0 && b.bufferedCount == 3)
        #expect(b.receive(c[0], from: Self.honest) == .applied(released: 3))
        #expect(try b.items(in: "C").count == 3)
    }

    @Test("An op held for two sources counts against each, and stays while either remains")
    func sharedOpCountsPerSource() throws {
        let a = try Self.chain("A", length: 3), c = try Self.chain("C", length: 2)
        var b = Replica(id: ReplicaID(deriving: "B"), bufferLimits: BufferLimits(ops: 100, opsPerSource: 2))
        b.receive(a[1], from: Self.flooder)
        b.receive(a[2], from: Self.flooder)
        #expect(b.receive(a[2], from: Self.honest) == .duplicate)
        #expect(b.bufferedCount == 2)
        #expect(b.bufferedCount(from: Self.flooder) == 2 && b.bufferedCount(from: Self.honest) == 1)
        // The shared op is one of the honest source's two.
        #expect(b.receive(c[1], from: Self.honest) == .buffered(waitingFor: c[0].id))
        #expect(b.receive(c[2], from: Self.honest) == .rejected(.sourceQuotaExceeded(c[2].id, source: Self.honest)))

        // The flooder leaves: its own op goes, the shared one stays for the honest source.
        #expect(b.dropWaitingOps(from: Self.flooder) == 1)
        #expect(b.heldOpIDs == [a[2].id, c[1].id])
        #expect(b.receive(a[0], from: Self.honest) == .applied(released: 0))
        #expect(b.receive(a[1], from: Self.honest) == .applied(released: 1))
        #expect(b.bufferedCount(from: Self.honest) == 1)
        #expect(b.dropWaitingOps(from: Self.honest) == 1)
        #expect(b.bufferedCount == 0 && b.bufferedBytes == 0)
    }

    @Test("An op released for its predecessor that waits again for something else stays its source's")
    func reheldOpKeepsItsSource() throws {
        var a = Replica(id: ReplicaID(deriving: "A"))
        let create = try a.createGallery("g")
        let drop = try a.insert([.titled("x")], into: "g", at: 0)
        var c = Replica(id: ReplicaID(deriving: "C"))
        for op in a.ops { c.receive(op) }
        let own = try c.createGallery("k")
        let update = try c.update(drop.id, .title, to: .text("y"))

        var e = Replica(id: ReplicaID(deriving: "E"))
        e.receive(create)
        #expect(e.receive(update, from: Self.flooder) == .buffered(waitingFor: own.id))
        // C's gallery applies and releases the update, which now waits for A's item: held again,
        // still charged to the source that sent it.
        #expect(e.receive(own, from: Self.honest) == .applied(released: 0))
        #expect(e.missingDependencies == [drop.id])
        #expect(e.bufferedCount(from: Self.flooder) == 1 && e.bufferedCount(from: Self.honest) == 0)
        var kept = e
        #expect(e.dropWaitingOps(from: Self.flooder) == 1)
        #expect(e.bufferedCount == 0 && e.missingDependencies.isEmpty)
        #expect(e.receive(drop) == .applied(released: 0))
        #expect(e.item(drop.id)?.title == "x")
        // Had the source stayed, A's item releases it.
        #expect(kept.receive(drop) == .applied(released: 1))
        #expect(kept.item(drop.id)?.title == "y")
    }
}

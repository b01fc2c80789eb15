@testable import GalleryModel
import Testing

/// Refused ops: a reused ID, a self-dependent op, malformed ops, applied or released from the buffer.
extension DeliveryTests {
    @Test("An op reusing an applied ID with other content or predecessor is refused as divergent; the same op is a duplicate")
    func reusedIDsAreRefused() throws {
        let a = try Self.writer()
        var b = Replica(id: ReplicaID(deriving: "B"))
        for op in a.ops { b.receive(op) }
        let before = b
        let x = a.ops[2].id
        let last = a.ops.last!
        let reused = [
            Op(id: a.ops[3].id, previous: a.ops[3].previous, action: .delete(item: x)),
            Op(id: a.ops[3].id, previous: 1, action: a.ops[3].action),
            Op(id: x.advanced(by: 1), previous: a.ops[1].lastCounter, action: .commit(item: x)),
            Op(id: last.id, previous: last.previous, action: .update(item: x, field: .title, value: .text("forged"))),
        ]
        for op in reused {
            let outcome = b.receive(op)
            #expect(outcome == .rejected(.divergentOp(op.id)), "a second version of an applied op ID: \(op)")
        }
        for op in a.ops { #expect(b.receive(op) == .duplicate, "the same op again is a duplicate: \(op)") }
        // An op held for its dependencies is compared too.
        var c = Replica(id: ReplicaID(deriving: "C"))
        let early = a.ops.last!
        #expect(c.receive(early) != .duplicate && c.bufferedCount == 1)
        let forgedEarly = Op(id: early.id, previous: early.previous, action: .createGallery(name: "forged"))
        #expect(c.receive(forgedEarly) == .rejected(.divergentOp(early.id)))
        #expect(c.receive(early) == .duplicate)
        // A new counter whose predecessor is not the last op applied from its replica: a fork.
        let forks = [
            Op(id: last.id.advanced(by: 1), previous: a.ops[4].lastCounter, action: .delete(item: x)),
            Op(id: last.id.advanced(by: 5), previous: 0, action: .createGallery(name: "fork")),
        ]
        for op in forks {
            #expect(b.receive(op) == .rejected(.conflictingHistory(op.id)), "\(op)")
        }
        #expect(Self.fingerprint(b) == Self.fingerprint(before))
    }

    @Test("An op naming itself or a later op as its predecessor is refused, not held for ever")
    func selfDependentOpIsRefused() throws {
        let a = try Self.writer()
        let genuine = a.ops[0]
        let later = OpID(counter: genuine.id.counter + 3, replica: genuine.id.replica)
        for previous in [genuine.id.counter, later.counter] {
            var b = Replica(id: ReplicaID(deriving: "B"))
            let before = b
            let forged = Op(id: genuine.id, previous: previous, action: .createGallery(name: "forged"))
            let outcome = b.receive(forged)
            #expect(outcome == .rejected(.conflictingHistory(forged.id)) || Self.isMalformed(outcome, forged),
                    "previous \(previous): \(outcome)")
            #expect(Self.fingerprint(b) == Self.fingerprint(before), "previous \(previous)")
            // Whatever happened to the forged op, the genuine op with that ID must still get through.
            #expect(b.receive(genuine) == .applied(released: 0), "previous \(previous)")
            #expect(b.contains(genuine.id) && b.bufferedCount == 0 && b.galleries == ["g"], "previous \(previous)")
        }
    }

    @Test("Malformed ops are refused and change nothing")
    func malformedOpsAreRefused() throws {
        let a = try Self.writer()
        var b = Replica(id: ReplicaID(deriving: "B"))
        for op in a.ops { b.receive(op) }
        let ops = a.ops
        let createG = ops[0].id
        let x = ops[2].id, y = x.advanced(by: 1), z = x.advanced(by: 2), v = ops[3].id, w = ops[4].id
        let crossMove = ops[5].id  // x moved into "h": a slot in "h", not an item.
        // g shows z (moved to 0, its slot is ops[8]), v; h shows w, x (slot crossMove).
        #expect(try b.items(in: "g").map(\.id) == [z, v])
        #expect(try b.items(in: "h").map(\.id) == [w, x])
        let zSlot = ops[8].id

        let forger = ReplicaID(deriving: "forger")
        let id = OpID(counter: 100, replica: forger)
        func op(_ action: Op.Action) -> Op { Op(id: id, previous: 0, action: action) }
        func insert(into gallery: String, after: OpID?, before: OpID?, _ drafts: [ItemDraft] = [.titled("n")]) -> Op {
            op(.insert(gallery: gallery, after: after, before: before, items: drafts))
        }
        let cases: [(String, Op)] = [
            ("move anchored in another gallery", op(.move(item: v, gallery: "g", after: crossMove, before: nil))),
            ("move anchored in another gallery (right)", op(.move(item: w, gallery: "h", after: nil, before: zSlot))),
            ("insert anchored in another gallery", insert(into: "h", after: v, before: nil)),
            ("insert with anchors out of order", insert(into: "g", after: v, before: zSlot)),
            ("move with anchors out of order", op(.move(item: w, gallery: "g", after: v, before: zSlot))),
            ("insert with one slot as both anchors", insert(into: "g", after: v, before: v)),
            ("insert anchored to a gallery creation", insert(into: "g", after: createG, before: nil)),
            ("update with a text aspect ratio", op(.update(item: v, field: .aspectRatio, value: .text("wide")))),
            ("update with a fractional byte size", op(.update(item: v, field: .byteSize, value: .number(1.5)))),
            ("update of the origin with text", op(.update(item: v, field: .origin, value: .text("x")))),
            ("update of a deleted item with an integer type", op(.update(item: y, field: .mediaType, value: .integer(3)))),
            ("delete of a gallery creation", op(.delete(item: createG))),
            ("commit of a gallery creation", op(.commit(item: createG))),
            ("update of a gallery creation", op(.update(item: createG, field: .title, value: .text("t")))),
            ("delete of a move's slot", op(.delete(item: crossMove))),
            ("move of a move's slot", op(.move(item: crossMove, gallery: "g", after: nil, before: nil))),
            ("insert of a draft with a wrongly typed field",
             insert(into: "g", after: nil, before: nil, [ItemDraft(fields: [.byteSize: .text("big")])])),
        ]
        for (name, forged) in cases {
            let before = b
            let outcome = b.receive(forged)
            #expect(Self.isMalformed(outcome, forged), "\(name): \(outcome)")
            #expect(Self.fingerprint(b) == Self.fingerprint(before), "\(name)")
        }
        let long = String(repeating: "é", count: 128)  // 256 bytes of UTF-8
        let huge = OpID(counter: 1 << 48, replica: forger)
        let invalid: [(String, Op, ModelError)] = [
            ("empty insert", insert(into: "g", after: nil, before: nil, []), .emptyInsert),
            ("gallery with an empty name", op(.createGallery(name: "")), .invalidGalleryName("")),
            ("insert into an empty name", insert(into: "", after: nil, before: nil), .invalidGalleryName("")),
            ("name past 255 bytes", op(.createGallery(name: long)), .invalidGalleryName(long)),
            ("counter past 48 bits", Op(id: huge, previous: 0, action: .delete(item: v)), .counterOverflow(huge)),
        ]
        for (name, forged, error) in invalid {
            let before = b
            #expect(b.receive(forged) == .rejected(error), "\(name)")
            #expect(Self.fingerprint(b) == Self.fingerprint(before), "\(name)")
        }
        // Nothing of the forger counts as applied: a valid op with the same ID still goes in.
        let valid = op(.move(item: v, gallery: "g", after: nil, before: zSlot))
        #expect(b.receive(valid) == .applied(released: 0))
        #expect(try b.items(in: "g").map(\.id) == [v, z])
    }

    @Test("A malformed op that waited in the buffer is dropped when released, and the rest applies")
    func malformedHeldOpIsDropped() throws {
        let a = try Self.writer()
        var b = Replica(id: ReplicaID(deriving: "B"))
        for op in a.ops.dropLast() { b.receive(op) }
        let last = a.ops.last!
        let forged = Op(id: last.id.advanced(by: 1), previous: last.lastCounter, action: .delete(item: a.ops[0].id))
        #expect(b.receive(forged) == .buffered(waitingFor: last.id))
        #expect(b.receive(last) == .applied(released: 0))
        #expect(b.bufferedCount == 0 && b.missingDependencies.isEmpty)
        #expect(!b.contains(forged.id))
        #expect(Self.view(b) == Self.view(a))
    }
}

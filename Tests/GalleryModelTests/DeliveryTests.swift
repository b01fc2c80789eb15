@testable import GalleryModel
import Testing

/// Causal delivery of ops between replicas: exactly once, after their dependencies, early ops held
/// in a bounded buffer, malformed or contradictory ops refused without a trace, and the Lamport
/// clock and version vectors that go with it.
@Suite("Delivery")
struct DeliveryTests {
    // MARK: Fixtures

    /// A replica named `name` with a short history of every kind of op: galleries "g" and "h",
    /// a three-item drop and an item in "g", a placeholder in "h", a move across galleries, an
    /// update, a commit, a move within "g" and a delete. Returns the replica; its ops are `ops`.
    static func writer(_ name: String = "A") throws -> Replica {
        var replica = Replica(id: ReplicaID(deriving: name), bufferLimit: 100_000)
        try replica.createGallery("g")
        try replica.createGallery("h")
        let drop = try replica.insert([.titled("x"), .titled("y"), .titled("z")], into: "g", at: 0)
        try replica.insert([.titled("v")], into: "g", at: 3)
        let placeholder = try replica.insert([.placeholder("w")], into: "h", at: 0)
        try replica.move(drop.id, to: "h", at: 1)
        try replica.update(drop.id.advanced(by: 1), .aspectRatio, to: .number(1.5))
        try replica.commit(placeholder.id)
        try replica.move(drop.id.advanced(by: 2), to: "g", at: 0)
        try replica.delete(drop.id.advanced(by: 1))
        return replica
    }

    /// The ID of the op that `op` names as its predecessor from the same replica.
    static func predecessor(of op: Op) -> OpID {
        OpID(counter: op.previous, replica: op.id.replica)
    }

    /// Every observable part of a replica's state, for checking that something changed nothing.
    static func fingerprint(_ replica: Replica) -> [AnyHashable] {
        view(replica) + [
            AnyHashable(replica.ops), AnyHashable(replica.opCount), AnyHashable(replica.lamportClock),
            AnyHashable(replica.bufferedCount), AnyHashable(replica.missingDependencies),
        ]
    }

    /// What a replica shows and has: galleries, their items, every item by ID, the version vector.
    static func view(_ replica: Replica) -> [AnyHashable] {
        var parts: [AnyHashable] = [replica.galleries, replica.version]
        for gallery in replica.galleries {
            parts.append((try? replica.items(in: gallery)) ?? [])
        }
        var items: [OpID] = []
        for op in replica.ops {
            if case .insert(_, _, _, let drafts) = op.action {
                items += drafts.indices.map { op.id.advanced(by: $0) }
            }
        }
        // By ID: replicas apply concurrent ops in different orders.
        for id in items.sorted() {
            parts.append(replica.item(id))
        }
        return parts
    }

    /// Whether an outcome is a refusal of `op` as malformed.
    static func isMalformed(_ outcome: ReceiveOutcome, _ op: Op) -> Bool {
        if case .rejected(.malformedOp(let id, _)) = outcome { return id == op.id }
        return false
    }

    // MARK: Exactly once

    @Test("A duplicate is dropped and changes nothing, applied or still held")
    func duplicatesAreDropped() throws {
        let a = try Self.writer()
        var b = Replica(id: ReplicaID(deriving: "B"))
        for op in a.ops {
            #expect(b.receive(op) == .applied(released: 0))
        }
        let before = b
        for op in a.ops.reversed() + a.ops {
            #expect(b.receive(op) == .duplicate)
        }
        #expect(Self.fingerprint(b) == Self.fingerprint(before))
        #expect(Self.view(b) == Self.view(a))

        // An op held in the buffer is a duplicate too, and is applied once when released.
        var c = Replica(id: ReplicaID(deriving: "C"))
        let (first, second) = (a.ops[0], a.ops[1])
        #expect(c.receive(second) == .buffered(waitingFor: Self.predecessor(of: second)))
        let held = c
        #expect(c.receive(second) == .duplicate)
        #expect(Self.fingerprint(c) == Self.fingerprint(held))
        #expect(c.receive(first) == .applied(released: 1))
        #expect(c.receive(second) == .duplicate)
        #expect(c.opCount == 2 && c.bufferedCount == 0)
    }

    // MARK: Causal order

    @Test("Ops delivered in reverse order wait in the buffer and all apply once the first arrives")
    func reverseOrderIsBufferedThenReleased() throws {
        let a = try Self.writer()
        var b = Replica(id: ReplicaID(deriving: "B"))
        for (held, op) in a.ops.dropFirst().reversed().enumerated() {
            #expect(b.receive(op) == .buffered(waitingFor: Self.predecessor(of: op)))
            #expect(b.bufferedCount == held + 1)
        }
        #expect(b.opCount == 0)
        #expect(b.galleries.isEmpty)
        #expect(b.receive(a.ops[0]) == .applied(released: a.ops.count - 1))
        #expect(b.bufferedCount == 0)
        #expect(b.missingDependencies.isEmpty)
        #expect(Self.view(b) == Self.view(a))
        #expect(b.ops.map(\.id) == a.ops.map(\.id))
    }

    @Test("An op waits for the items and slots it names from other replicas, and says which")
    func missingDependenciesReportsWhatIsAwaited() throws {
        var a = Replica(id: ReplicaID(deriving: "A"))
        let create = try a.createGallery("g")
        let insert = try a.insert([.titled("x"), .titled("y")], into: "g", at: 0)
        var c = Replica(id: ReplicaID(deriving: "C"))
        for op in a.ops { c.receive(op) }
        let y = insert.id.advanced(by: 1)
        let update = try c.update(y, .title, to: .text("why"))
        let move = try c.move(y, to: "g", at: 0)

        var b = Replica(id: ReplicaID(deriving: "B"))
        // C's first op names y, the second item of A's drop: it waits for that counter.
        #expect(b.receive(update) == .buffered(waitingFor: y))
        #expect(b.missingDependencies == [y])
        #expect(b.receive(move) == .buffered(waitingFor: update.id))
        #expect(b.missingDependencies == [update.id, y].sorted())
        // A's drop itself waits for A's gallery creation.
        #expect(b.receive(insert) == .buffered(waitingFor: create.id))
        #expect(b.missingDependencies == [create.id, update.id, y].sorted())
        #expect(b.bufferedCount == 3)
        #expect(b.receive(create) == .applied(released: 3))
        #expect(b.missingDependencies.isEmpty)
        #expect(b.bufferedCount == 0)
        #expect(Self.view(b) == Self.view(c))
        #expect(try b.items(in: "g").map(\.title) == ["why", "x"])

        // An op waiting for a later item of a run is released by the run's op itself.
        var d = Replica(id: ReplicaID(deriving: "D"))
        d.receive(create)
        #expect(d.receive(update) == .buffered(waitingFor: y))
        #expect(d.receive(insert) == .applied(released: 1))
        #expect(d.bufferedCount == 0 && d.item(y)?.title == "why")
    }

    @Test("The buffer is bounded: an early op past the limit is refused, and works when sent again")
    func bufferIsBounded() throws {
        let a = try Self.writer()
        let ops = a.ops
        var b = Replica(id: ReplicaID(deriving: "B"), bufferLimit: 3)
        for op in ops[1...3] {
            #expect(b.receive(op) == .buffered(waitingFor: Self.predecessor(of: op)))
        }
        let full = b
        #expect(b.receive(ops[4]) == .rejected(.bufferFull(ops[4].id)))
        #expect(Self.fingerprint(b) == Self.fingerprint(full))
        // Held ops are still recognised as duplicates when the buffer is full.
        #expect(b.receive(ops[2]) == .duplicate)
        #expect(b.bufferedCount == 3)
        // An op that is ready applies even with a full buffer, releasing what waited for it.
        #expect(b.receive(ops[0]) == .applied(released: 3))
        #expect(b.bufferedCount == 0)
        // Nothing was lost: the refused op is simply delivered again.
        #expect(b.receive(ops[4]) == .applied(released: 0))
        for op in ops[5...] {
            #expect(b.receive(op) == .applied(released: 0))
        }
        #expect(Self.view(b) == Self.view(a))
    }

    // MARK: Sync

    /// Three replicas with concurrent histories: A and C diverge, B has part of both.
    static func divergedReplicas() throws -> (a: Replica, b: Replica, c: Replica) {
        var a = try writer("A")
        var c = Replica(id: ReplicaID(deriving: "C"))
        for op in a.ops.prefix(4) { c.receive(op) }
        let x = a.ops[2].id
        try c.insert([.titled("c1"), .placeholder("c2")], into: "g", at: 1)
        try c.move(x.advanced(by: 2), to: "g", at: 0)
        try c.update(x, .title, to: .text("ex"))
        try c.createGallery("k")
        try c.insert([.titled("c3")], into: "k", at: 0)
        try a.insert([.titled("a1")], into: "g", at: 0)
        var b = Replica(id: ReplicaID(deriving: "B"))
        for op in a.ops.prefix(6) { b.receive(op) }
        for op in c.ops.prefix(7) { b.receive(op) }
        try b.insert([.titled("b1"), .titled("b2")], into: "g", at: 2)
        for op in b.ops { a.receive(op) }
        return (a, b, c)
    }

    @Test("ops(missingFrom:) returns exactly the missing ops, in an order that applies without buffering")
    func opsMissingFromIsExactAndInCausalOrder() throws {
        let (a, b, c) = try Self.divergedReplicas()
        for (source, target) in [(a, b), (a, c), (b, a), (b, c), (c, a), (c, b)] {
            let missing = source.ops(missingFrom: target.version)
            let expected = source.ops.filter { !target.version.contains($0.id) }
            #expect(missing.count == expected.count)
            #expect(Set(missing.map(\.id)) == Set(expected.map(\.id)))
            var receiver = target
            for op in missing {
                #expect(receiver.receive(op) == .applied(released: 0), "\(source.id) -> \(target.id): \(op.id)")
            }
            #expect(receiver.version.includes(source.version))
        }
        for source in [a, b, c] {
            #expect(source.ops(missingFrom: source.version).isEmpty)
            var fresh = Replica(id: ReplicaID(deriving: "fresh"))
            for op in source.ops(missingFrom: VersionVector()) {
                #expect(fresh.receive(op) == .applied(released: 0))
            }
            #expect(Self.view(fresh) == Self.view(source))
        }
    }

    @Test("After a full sync the version vectors are equal, and name each replica's last counter")
    func versionVectorsAreEqualAfterSync() throws {
        var (a, b, c) = try Self.divergedReplicas()
        #expect(!a.version.includes(c.version) && !c.version.includes(a.version))
        #expect(b.version.includes(VersionVector([a.id: a.ops[5].lastCounter])))
        for _ in 0..<2 {
            for op in b.ops(missingFrom: a.version) { a.receive(op) }
            for op in c.ops(missingFrom: a.version) { a.receive(op) }
            for op in a.ops(missingFrom: b.version) { b.receive(op) }
            for op in a.ops(missingFrom: c.version) { c.receive(op) }
        }
        #expect(a.version == b.version)
        #expect(b.version == c.version)
        #expect(a.version.includes(b.version) && b.version.includes(a.version))
        for replica in [a, b, c] {
            let own = replica.ops.filter { $0.id.replica == replica.id }.map(\.lastCounter).max() ?? 0
            #expect(a.version[replica.id] == own)
        }
        #expect(Self.view(a) == Self.view(b))
        #expect(Self.view(b) == Self.view(c))
    }

    // MARK: Lamport clock

    @Test("The Lamport clock moves past every counter received, so later local ops are greater")
    func lamportClockAdvancesPastReceivedCounters() throws {
        let a = try Self.writer()
        var b = Replica(id: ReplicaID(deriving: "B"))
        let mine = try b.createGallery("b")
        #expect(mine.id.counter == 1)
        // A's last op ends a run of several counters: the clock must pass the whole run.
        var a2 = a
        let run = try a2.insert([.titled("r1"), .titled("r2"), .titled("r3")], into: "g", at: 0)
        for op in a2.ops {
            b.receive(op)
            #expect(b.lamportClock >= op.lastCounter)
        }
        #expect(b.lamportClock == run.lastCounter)
        let next = try b.insert([.titled("after")], into: "g", at: 0)
        #expect(next.id.counter > run.lastCounter)
        #expect(a2.ops.allSatisfy { $0.id < next.id })
        #expect(next.previous == mine.lastCounter)
        // A's replica, receiving B's ops, also moves past them.
        #expect(a2.receive(mine) == .applied(released: 0))
        #expect(a2.receive(next) == .applied(released: 0))
        #expect(a2.lamportClock == next.id.counter)
        #expect(try a2.createGallery("later").id.counter > next.id.counter)
        // Ops held in the buffer or refused do not move the clock.
        let clock = b.lamportClock
        let early = Op(id: OpID(counter: 999, replica: a.id), previous: 998, action: .createGallery(name: "z"))
        #expect(b.receive(early) == .buffered(waitingFor: OpID(counter: 998, replica: a.id)))
        #expect(b.lamportClock == clock)
    }
}

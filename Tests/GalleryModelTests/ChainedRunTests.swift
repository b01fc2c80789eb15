@testable import GalleryModel
import Testing

/// `Replica.insertRun`: a run too large for one op becomes chained ops that every replica orders
/// exactly as it would order one insert of the whole run, concurrent inserts included.
@Suite("Chained runs")
struct ChainedRunTests {
    /// A run of `count` titled items.
    static func run(_ prefix: String, _ count: Int) -> [ItemDraft] {
        (0..<count).map { .titled("\(prefix)\($0)") }
    }

    /// A replica with gallery "g" holding p and q (made by `maker`).
    static func seeded(_ id: UInt64, from maker: Replica) -> Replica {
        var replica = Replica(id: ReplicaID(id))
        for op in maker.ops { replica.receive(op) }
        return replica
    }

    static func titles(_ replica: Replica) throws -> [String] {
        try replica.items(in: "g").map { $0.title ?? "" }
    }

    @Test("5,000 items in two chained ops land as one contiguous run, ordered as one op of the whole run, whatever concurrent inserts and delivery order")
    func chainedEqualsSingle() throws {
        var a = Replica(id: ReplicaID(0x50))
        try a.createGallery("g")
        try a.insert([.titled("p"), .titled("q")], into: "g", at: 0)
        let base = a
        var low = Self.seeded(0x10, from: a)
        var high = Self.seeded(0x90, from: a)

        let drafts = Self.run("a", 5_000)
        let chained = try a.insertRun(drafts, into: "g", at: 1)
        #expect(chained.map(\.span) == [4_096, 904])
        #expect(chained[1].id == chained[0].id.advanced(by: 4_096))
        #expect(chained[1].previous == chained[0].lastCounter)
        guard case .insert(_, let after, let before, _) = chained[0].action,
              case .insert(_, let secondAfter, let secondBefore, _) = chained[1].action else {
            Issue.record("not inserts")
            return
        }
        #expect(secondAfter == chained[0].id.advanced(by: 4_095), "the second op is anchored after the first's last item")
        #expect(secondBefore == before)
        // Concurrent runs at the same place, from replicas on either side of A's ID.
        let fromLow = try low.insert(Self.run("l", 3), into: "g", at: 1)
        let fromHigh = try high.insert(Self.run("h", 2), into: "g", at: 1)
        let fromHighEnd = try high.insert([.titled("e")], into: "g", at: 4)

        // One op of the whole run, as a version without the bounds would have made it.
        let single = Op(id: chained[0].id, previous: chained[0].previous,
                        action: .insert(gallery: "g", after: after, before: before, items: drafts))
        let others = [fromLow, fromHigh, fromHighEnd]
        var orders: [[String]] = []
        for (seed, ops) in [(1, chained + others), (2, others + chained), (3, [chained[1]] + others + [chained[0]]),
                            (4, [single] + others), (5, others + [single])] {
            var replica = Self.seeded(0x70 + UInt64(seed), from: base)
            for op in ops {
                if case .rejected(let error) = replica.receive(op) { Issue.record("order \(seed): \(error)") }
            }
            #expect(replica.bufferedCount == 0)
            orders.append(try Self.titles(replica))
        }
        #expect(Set(orders).count == 1, "every delivery order, chained or single, shows the same gallery")
        let order = orders[0]
        let start = try #require(order.firstIndex(of: "a0"))
        #expect(Array(order[start..<(start + 5_000)]) == drafts.map { $0.fields[.title]?.text ?? "" },
                "the run is contiguous and in order")
        #expect(order.count == 2 + 5_000 + 3 + 2 + 1)
    }

    @Test("An insert made after seeing only the first op of a run lands where its author put it: right after that op's last item, or after the whole run")
    func partialView() throws {
        var a = Replica(id: ReplicaID(0x50))
        try a.createGallery("g")
        try a.insert([.titled("p"), .titled("q")], into: "g", at: 0)
        let chained = try a.insertRun(Self.run("a", 4_100), into: "g", at: 1)
        #expect(chained.count == 2)
        for (id, expected) in [(UInt64(0x10), 4_097), (UInt64(0x90), 4_101)] {
            var partial = Replica(id: ReplicaID(id))
            for op in a.ops.prefix(3) { partial.receive(op) }
            // After a4095, the last item of the first op.
            let mine = try partial.insert([.titled("x")], into: "g", at: 4_097)
            var everyone = a
            everyone.receive(mine)
            var other = partial
            other.receive(chained[1])
            let titles = try Self.titles(everyone)
            #expect(titles == (try Self.titles(other)))
            #expect(titles.firstIndex(of: "x") == expected, "replica \(id)")
        }
    }

    @Test("A run is refused whole: a bad item anywhere, an unknown gallery or a bad index makes no op")
    func allOrNothing() throws {
        var replica = Replica(id: ReplicaID(1))
        try replica.createGallery("g")
        var drafts = Self.run("a", 5_000)
        drafts[4_500] = ItemDraft(fields: [.url: .text("")])
        #expect(throws: ModelError.self) { try replica.insertRun(drafts, into: "g", at: 0) }
        #expect(throws: ModelError.unknownGallery("nope")) { try replica.insertRun(Self.run("a", 2), into: "nope", at: 0) }
        #expect(throws: ModelError.indexOutOfRange(index: 3, count: 0)) { try replica.insertRun(Self.run("a", 2), into: "g", at: 3) }
        #expect(replica.opCount == 1)
    }
}

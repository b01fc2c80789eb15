@testable import GalleryModel
import Testing

/// One test per conflict rule of design.md section 3 that the model covers (1-11 and 14).
@Suite("Conflict rules")
struct ConflictRuleTests {
    @Test("Rule 1: two inserts at one index are both present, ordered the same everywhere")
    func rule1ConcurrentInserts() throws {
        let steps = #"""
            {"at": "A", "insert": ["x"], "gallery": "g", "index": 2},
            {"at": "B", "insert": ["y"], "gallery": "g", "index": 2}
            """#
        let oneWay = try Schedules.run(steps + #", {"sync": ["A", "B"]}, {"sync": ["B", "A"]}"#)
        let otherWay = try Schedules.run(steps + #", {"sync": ["B", "A"]}, {"sync": ["A", "B"]}"#)
        #expect(oneWay.converged && otherWay.converged)
        #expect(oneWay == otherWay)
        let merged = oneWay.labels("A", "g")
        #expect(merged.count == 7)
        #expect(Array(merged.prefix(2)) == ["a", "b"] && Array(merged.suffix(3)) == ["c", "d", "e"])
        #expect(Set(merged[2...3]) == ["x", "y"])
        // Same counters: the replica IDs decide, the lower first.
        let expected = ReplicaID(deriving: "A") < ReplicaID(deriving: "B") ? ["x", "y"] : ["y", "x"]
        #expect(Array(merged[2...3]) == expected)
    }

    @Test("Rule 2: two multi-item drops at one index stay contiguous", arguments: [0, 2, 5])
    func rule2RunsDoNotInterleave(index: Int) throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "insert": ["x1", "x2", "x3"], "gallery": "g", "index": \#(index)},
            {"at": "B", "insert": ["y1", "y2", "y3"], "gallery": "g", "index": \#(index)},
            {"syncAll": true}
            """#)
        #expect(outcome.converged)
        let merged = outcome.labels("A", "g").joined(separator: " ")
        #expect(merged.contains("x1 x2 x3") && merged.contains("y1 y2 y3"))
    }

    @Test("Rule 3: two moves of one item: it appears once, where the greater op ID put it")
    func rule3ConcurrentMoves() throws {
        var (a, b, ids) = try Schedules.pair()
        let moveA = try a.move(ids["a"]!, to: "g", at: 4)
        let moveB = try b.move(ids["a"]!, to: "g", at: 2)
        let winnerView = moveA.id > moveB.id ? Schedules.titles(a) : Schedules.titles(b)
        Schedules.sync(&a, &b)
        #expect(Schedules.titles(a) == Schedules.titles(b))
        #expect(Schedules.titles(a) == winnerView)
        #expect(Schedules.titles(a).filter { $0 == "a" }.count == 1)
    }

    @Test("Rule 4: move vs delete of one item: delete wins, whatever arrives first")
    func rule4DeleteWinsOverMove() throws {
        for order in [["A", "B"], ["B", "A"]] {
            let outcome = try Schedules.run(#"""
                {"at": "A", "move": "b", "gallery": "g", "index": 4},
                {"at": "B", "delete": "b"},
                {"sync": ["\#(order[0])", "\#(order[1])"]}, {"sync": ["\#(order[1])", "\#(order[0])"]}
                """#)
            #expect(outcome.converged)
            #expect(outcome.labels("A", "g") == ["a", "c", "d", "e"])
        }
    }

    @Test("Rule 5: update vs move: both apply, the item keeps its ID")
    func rule5UpdateAndMove() throws {
        var (a, b, ids) = try Schedules.pair()
        try a.update(ids["c"]!, .title, to: .text("C!"))
        try b.move(ids["c"]!, to: "g", at: 0)
        Schedules.sync(&a, &b)
        #expect(Schedules.titles(a) == ["C!", "a", "b", "d", "e"])
        #expect(Schedules.titles(b) == Schedules.titles(a))
        #expect(try a.item(at: 0, in: "g").id == ids["c"]!)
    }

    @Test("Rule 6: update vs update: the greater op ID wins per field; other fields both apply")
    func rule6FieldLastWriterWins() throws {
        var (a, b, ids) = try Schedules.pair()
        let fromA = try a.update(ids["a"]!, .title, to: .text("from A"))
        let fromB = try b.update(ids["a"]!, .title, to: .text("from B"))
        try a.update(ids["a"]!, .aspectRatio, to: .number(1.5))
        try b.update(ids["a"]!, .mediaType, to: .text("image/png"))
        Schedules.sync(&a, &b)
        let item = try #require(a.item(ids["a"]!))
        #expect(item.title == (fromA.id > fromB.id ? "from A" : "from B"))
        #expect(item.aspectRatio == 1.5 && item.mediaType == "image/png")
        #expect(b.item(ids["a"]!) == item)
    }

    @Test("Rule 7: update vs delete: delete wins")
    func rule7DeleteWinsOverUpdate() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "update": "d", "field": "title", "value": "renamed"},
            {"at": "B", "delete": "d"},
            {"syncAll": true}
            """#)
        #expect(outcome.converged)
        #expect(outcome.labels("B", "g") == ["a", "b", "c", "e"])
    }

    @Test("Rule 8: delete vs delete: deleted once, no error")
    func rule8DoubleDelete() throws {
        var (a, b, ids) = try Schedules.pair()
        let deleteA = try a.delete(ids["e"]!)
        try b.delete(ids["e"]!)
        #expect(b.receive(deleteA) == .applied(released: 0))
        Schedules.sync(&a, &b)
        #expect(Schedules.titles(a) == ["a", "b", "c", "d"])
        #expect(Schedules.titles(b) == ["a", "b", "c", "d"])
    }

    @Test("Rule 9: a move next to an item concurrently deleted lands at its anchor (tombstone)")
    func rule9AnchorDeleted() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "move": "a", "gallery": "g", "index": 2},
            {"at": "B", "delete": "c"},
            {"syncAll": true}
            """#)
        #expect(outcome.converged)
        #expect(outcome.labels("A", "g") == ["b", "a", "d", "e"])
    }

    @Test("Rule 9: a move next to an item concurrently moved lands at its old anchor")
    func rule9AnchorMoved() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "move": "e", "gallery": "g", "index": 1},
            {"at": "B", "move": "a", "gallery": "g", "index": 4},
            {"syncAll": true}
            """#)
        #expect(outcome.converged)
        // e was anchored right after a's old slot, which is a tombstone once a moves to the end.
        #expect(outcome.labels("A", "g") == ["e", "b", "c", "d", "a"])
    }

    @Test("Rule 10: commit vs delete of a placeholder: delete wins")
    func rule10DeleteWinsOverCommit() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "insertPlaceholder": ["p"], "gallery": "g", "index": 1},
            {"syncAll": true},
            {"at": "A", "commit": "p"},
            {"at": "B", "delete": "p"},
            {"syncAll": true}
            """#)
        #expect(outcome.converged)
        #expect(outcome.labels("A", "g") == ["a", "b", "c", "d", "e"])
    }

    @Test("Rule 11: a placeholder commits where it stands at commit time")
    func rule11CommitWhereItStands() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "insertPlaceholder": ["p"], "gallery": "g", "index": 1},
            {"syncAll": true},
            {"at": "B", "insert": ["x", "y"], "gallery": "g", "index": 0},
            {"at": "B", "delete": "a"},
            {"at": "B", "move": "p", "gallery": "g", "index": 5},
            {"sync": ["B", "A"]},
            {"at": "A", "commit": "p"},
            {"syncAll": true}
            """#)
        #expect(outcome.converged)
        #expect(outcome.labels("A", "g") == ["x", "y", "b", "c", "d", "p", "e"])
        let entry = outcome.replicas[1].galleries[0].items[5]
        #expect(entry.label == "p" && entry.state == .ready)
    }

    @Test("Rule 14: two replicas create the same gallery: one gallery, items from both")
    func rule14SameGalleryName() throws {
        let outcome = try Schedules.run(json: #"""
            {"replicas": ["A", "B"], "steps": [
              {"at": "A", "createGallery": "h"},
              {"at": "B", "createGallery": "h"},
              {"at": "A", "insert": ["a1", "a2"], "gallery": "h", "index": 0},
              {"at": "B", "insert": ["b1"], "gallery": "h", "index": 0},
              {"syncAll": true}]}
            """#)
        #expect(outcome.converged)
        #expect(outcome.replicas[0].galleries.map(\.name) == ["h"])
        #expect(Set(outcome.labels("A", "h")) == ["a1", "a2", "b1"])
    }
}

@testable import GalleryModel
import Testing

/// The cases the model issue names, each starting from `[a, b, c, d, e]` on two or three replicas.
@Suite("Named cases")
struct NamedCaseTests {
    /// Steps that type `labels` one item at a time at `index`, forward (each after the previous).
    private func forward(_ replica: String, _ labels: [String], at index: Int) -> String {
        labels.enumerated().map { offset, label in
            #"{"at": "\#(replica)", "insert": ["\#(label)"], "gallery": "g", "index": \#(index + offset)}"#
        }.joined(separator: ", ")
    }

    /// Steps that type `labels` backward: each new item inserted at `index`, before the previous.
    private func backward(_ replica: String, _ labels: [String], at index: Int) -> String {
        labels.reversed().map { label in
            #"{"at": "\#(replica)", "insert": ["\#(label)"], "gallery": "g", "index": \#(index)}"#
        }.joined(separator: ", ")
    }

    @Test("Concurrent forward runs at one index do not interleave")
    func concurrentForwardRuns() throws {
        let outcome = try Schedules.run(
            forward("A", ["x1", "x2", "x3"], at: 2) + ", " + forward("B", ["y1", "y2", "y3"], at: 2)
                + #", {"syncAll": true}"#)
        #expect(outcome.converged)
        let merged = outcome.labels("A", "g").joined(separator: " ")
        #expect(merged.contains("x1 x2 x3") && merged.contains("y1 y2 y3"))
        #expect(merged.hasPrefix("a b") && merged.hasSuffix("c d e"))
    }

    @Test("Concurrent backward runs at one index do not interleave")
    func concurrentBackwardRuns() throws {
        let outcome = try Schedules.run(
            backward("A", ["x1", "x2", "x3"], at: 2) + ", " + backward("B", ["y1", "y2", "y3"], at: 2)
                + #", {"syncAll": true}"#)
        #expect(outcome.converged)
        let merged = outcome.labels("A", "g").joined(separator: " ")
        #expect(merged.contains("x1 x2 x3") && merged.contains("y1 y2 y3"))
    }

    @Test("Three replicas typing backward at one index (the Fugue paper's case where Yjs interleaves)")
    func threeReplicaBackward() throws {
        let replicas = ["A", "B", "C"]
        let typing = backward("A", ["a1", "a2", "a3"], at: 1) + ", " + backward("B", ["b1", "b2", "b3"], at: 1)
            + ", " + backward("C", ["c1", "c2", "c3"], at: 1)
        var results = Set<[String]>()
        for order in permutations(replicas) {
            // Deliver the three runs to each replica in a different order, one run at a time.
            var syncs: [String] = []
            for target in replicas {
                for source in order where source != target {
                    syncs.append(#"{"sync": ["\#(source)", "\#(target)"]}"#)
                }
            }
            let outcome = try Schedules.run(replicas: replicas, typing + ", " + syncs.joined(separator: ", "))
            #expect(outcome.converged)
            let merged = outcome.labels("A", "g").joined(separator: " ")
            for run in ["a1 a2 a3", "b1 b2 b3", "c1 c2 c3"] { #expect(merged.contains(run), "\(merged)") }
            results.insert(outcome.labels("A", "g"))
        }
        #expect(results.count == 1)
    }

    @Test("Move a to 4 vs move a to 2: the greater op ID's destination wins")
    func moveToFourVersusTwo() throws {
        var (a, b, ids) = try Schedules.pair()
        let toFour = try a.move(ids["a"]!, to: "g", at: 4)
        let toTwo = try b.move(ids["a"]!, to: "g", at: 2)
        #expect(Schedules.titles(a) == ["b", "c", "d", "e", "a"])
        #expect(Schedules.titles(b) == ["b", "c", "a", "d", "e"])
        Schedules.sync(&a, &b)
        let expected = toFour.id > toTwo.id ? ["b", "c", "d", "e", "a"] : ["b", "c", "a", "d", "e"]
        #expect(Schedules.titles(a) == expected)
        #expect(Schedules.titles(b) == expected)
    }

    @Test("Two moves to the same slot: both items land there, in one order everywhere")
    func twoMovesToSameSlot() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "move": "a", "gallery": "g", "index": 3},
            {"at": "B", "move": "b", "gallery": "g", "index": 3},
            {"syncAll": true}
            """#)
        #expect(outcome.converged)
        let merged = outcome.labels("A", "g")
        #expect(Array(merged.prefix(2)) == ["c", "d"] && merged.last == "e")
        #expect(Set(merged[2...3]) == ["a", "b"])
    }

    @Test("Three replicas move a to three places: one result under every delivery order")
    func threeReplicasMoveOneItem() throws {
        let replicas = ["A", "B", "C"]
        let moves = #"""
            {"at": "A", "move": "a", "gallery": "g", "index": 1},
            {"at": "B", "move": "a", "gallery": "g", "index": 3},
            {"at": "C", "move": "a", "gallery": "g", "index": 4}
            """#
        var results = Set<[String]>()
        for order in permutations(replicas) {
            var syncs: [String] = []
            for target in replicas {
                for source in order where source != target {
                    syncs.append(#"{"sync": ["\#(source)", "\#(target)"], "shuffle": 3}"#)
                }
            }
            let outcome = try Schedules.run(replicas: replicas, moves + ", " + syncs.joined(separator: ", "))
            #expect(outcome.converged)
            #expect(outcome.labels("A", "g").filter { $0 == "a" }.count == 1)
            results.insert(outcome.labels("A", "g"))
        }
        #expect(results.count == 1)
        // All three moves have the same counter, so the greatest replica ID wins.
        let winner = replicas.max { ReplicaID(deriving: $0) < ReplicaID(deriving: $1) }!
        let expected: [String: [String]] = [
            "A": ["b", "a", "c", "d", "e"], "B": ["b", "c", "d", "a", "e"], "C": ["b", "c", "d", "e", "a"],
        ]
        #expect(results.first == expected[winner])
    }

    @Test("Move a after c while c moves to the end gives b a d e c")
    func moveAfterItemThatMoves() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "move": "a", "gallery": "g", "index": 2},
            {"at": "B", "move": "c", "gallery": "g", "index": 4},
            {"syncAll": true}
            """#)
        #expect(outcome.converged)
        #expect(outcome.labels("A", "g") == ["b", "a", "d", "e", "c"])
    }

    @Test("Move c to 0 while N is inserted after c gives c a b N d e")
    func moveWhileInsertAfter() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "move": "c", "gallery": "g", "index": 0},
            {"at": "B", "insert": ["N"], "gallery": "g", "index": 3},
            {"syncAll": true}
            """#)
        #expect(outcome.converged)
        #expect(outcome.labels("A", "g") == ["c", "a", "b", "N", "d", "e"])
    }

    @Test("Delete vs update-then-move arriving in two batches: deleted")
    func deleteVersusUpdateThenMoveInTwoBatches() throws {
        var (a, b, ids) = try Schedules.pair()
        try a.delete(ids["b"]!)
        let update = try b.update(ids["b"]!, .title, to: .text("renamed"))
        let move = try b.move(ids["b"]!, to: "g", at: 4)
        #expect(a.receive(update) == .applied(released: 0))
        #expect(Schedules.titles(a) == ["a", "c", "d", "e"])
        #expect(a.receive(move) == .applied(released: 0))
        #expect(Schedules.titles(a) == ["a", "c", "d", "e"])
        Schedules.sync(&a, &b)
        #expect(Schedules.titles(b) == ["a", "c", "d", "e"])
        #expect(a.location(of: ids["b"]!) == nil && b.location(of: ids["b"]!) == nil)
        #expect(throws: ModelError.itemDeleted(ids["b"]!)) { try b.move(ids["b"]!, to: "g", at: 0) }
    }

    @Test("Cross-gallery move: the item leaves one gallery and lands at the index in the other")
    func crossGalleryMove() throws {
        let outcome = try Schedules.run(#"""
            {"at": "B", "createGallery": "h"},
            {"at": "B", "insert": ["h1", "h2"], "gallery": "h", "index": 0},
            {"at": "B", "move": "c", "gallery": "h", "index": 1},
            {"syncAll": true}
            """#)
        #expect(outcome.converged)
        #expect(outcome.labels("A", "g") == ["a", "b", "d", "e"])
        #expect(outcome.labels("A", "h") == ["h1", "c", "h2"])
    }

    private func permutations(_ elements: [String]) -> [[String]] {
        guard elements.count > 1 else { return [elements] }
        return elements.indices.flatMap { index in
            var rest = elements
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }
}

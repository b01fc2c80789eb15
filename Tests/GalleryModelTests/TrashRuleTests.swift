@testable import GalleryModel
import Testing

/// The rules of the Trash (docs/design.md, "Trash"), each in both delivery orders.
@Suite("Trash rules")
struct TrashRuleTests {
    /// Both orders of delivery between A and B after `steps`.
    private static func bothWays(_ steps: String) throws -> [SimulationOutcomeView] {
        try [["A", "B"], ["B", "A"]].map { order in
            let outcome = try Schedules.run(steps + #", {"sync": ["\#(order[0])", "\#(order[1])"]}, {"sync": ["\#(order[1])", "\#(order[0])"]}"#)
            return SimulationOutcomeView(gallery: outcome.labels("A", "g"), trash: outcome.trashLabels("A"), converged: outcome.converged)
        }
    }

    @Test("A trashed item leaves its gallery; a restore puts it back between the neighbours it had")
    func trashAndRestore() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "trash": "c"},
            {"at": "A", "insert": ["x"], "gallery": "g", "index": 2},
            {"at": "A", "move": "b", "gallery": "g", "index": 3},
            {"at": "A", "restore": "c"}, {"syncAll": true}
            """#)
        #expect(outcome.converged)
        // c stood between b and d: x went in where c was (before d), c comes back right after b's old place.
        #expect(outcome.labels("B", "g") == ["a", "c", "x", "d", "b", "e"])
        #expect(outcome.trashLabels("B").isEmpty)
    }

    @Test("A move concurrent with a move to the Trash: the item stays in the Trash; a restore takes it where the move put it")
    func trashWinsOverConcurrentMove() throws {
        for view in try Self.bothWays(#"{"at": "A", "move": "b", "gallery": "g", "index": 4}, {"at": "B", "trash": "b"}"#) {
            #expect(view.converged)
            #expect(view.gallery == ["a", "c", "d", "e"] && view.trash == ["b"])
        }
        let restored = try Schedules.run(#"""
            {"at": "A", "move": "b", "gallery": "g", "index": 4}, {"at": "B", "trash": "b"}, {"syncAll": true},
            {"at": "B", "restore": "b"}, {"syncAll": true}
            """#)
        #expect(restored.converged && restored.labels("A", "g") == ["a", "c", "d", "e", "b"])
    }

    @Test("An edit concurrent with a move to the Trash is applied to the item in the Trash")
    func editAppliesInTrash() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "update": "b", "field": "title", "value": "edited"}, {"at": "B", "trash": "b"}, {"syncAll": true}
            """#)
        #expect(outcome.converged)
        #expect(outcome.trashLabels("A") == ["b"])
        #expect(outcome.replicas[0].trash.first?.title == "edited")
    }

    @Test("A move to the Trash vs a restore: the greater op ID wins, the same everywhere")
    func trashVersusRestore() throws {
        var (a, b, ids) = try Schedules.pair()
        try a.trash(ids["b"]!, at: 1)
        Schedules.sync(&a, &b)
        let restore = try a.restore(ids["b"]!)[0]
        try b.restore(ids["b"]!)
        let trash = try b.trash(ids["b"]!, at: 2)
        Schedules.sync(&a, &b)
        let inTrash = a.trash.map(\.id) == [ids["b"]!]
        #expect(inTrash == (trash.id > restore.id))
        #expect(a.trash.map(\.id) == b.trash.map(\.id) && Schedules.titles(a) == Schedules.titles(b))
    }

    @Test("Restore vs Empty Trash at the same time: the delete wins (rule 4), nothing comes back")
    func restoreVersusEmpty() throws {
        for view in try Self.bothWays(#"{"at": "A", "trash": "b"}, {"sync": ["A", "B"]}, {"at": "A", "restore": "b"}, {"at": "B", "delete": "b"}"#) {
            #expect(view.converged)
            #expect(view.gallery == ["a", "c", "d", "e"] && view.trash.isEmpty)
        }
    }

    @Test("Deleting a gallery puts its items in the Trash; an insert concurrent with it lands in the Trash too, and a restore brings the gallery back")
    func deleteGalleryVersusInsert() throws {
        let outcome = try Schedules.run(#"""
            {"at": "A", "createGallery": "h"}, {"syncAll": true},
            {"at": "A", "deleteGallery": "g"}, {"at": "B", "insert": ["x"], "gallery": "g", "index": 1}, {"syncAll": true}
            """#)
        #expect(outcome.converged)
        #expect(outcome.replicas[0].galleries.map(\.name) == ["h"])
        #expect(Set(outcome.trashLabels("A")) == ["a", "b", "c", "d", "e", "x"])
        // x was never trashed itself: it counts as the most recent.
        #expect(outcome.trashLabels("A").first == "x")

        var (a, b, ids) = try Schedules.pair()
        try a.createGallery("h")
        for id in try a.items(in: "g").map(\.id) { try a.trash(id, at: 5) }
        try a.deleteGallery("g")
        let x = try b.insert([.titled("x")], into: "g", at: 1).id
        Schedules.sync(&a, &b)
        #expect(!b.hasGallery("g") && b.trash.count == 6)
        try b.restore(x)
        Schedules.sync(&a, &b)
        #expect(a.hasGallery("g") && Schedules.titles(a) == ["x"] && a.trash.count == 5)
        try a.restore(ids["c"]!)
        #expect(Schedules.titles(a) == ["x", "c"])
    }

    @Test("A trashed item cannot be moved or trashed again; a restore of an item not in the Trash is refused")
    func refusals() throws {
        var (a, _, ids) = try Schedules.pair()
        try a.trash(ids["a"]!, at: 0)
        #expect(throws: ModelError.itemInTrash(ids["a"]!)) { try a.move(ids["a"]!, to: "g", at: 0) }
        #expect(throws: ModelError.itemInTrash(ids["a"]!)) { try a.trash(ids["a"]!, at: 0) }
        #expect(throws: ModelError.notInTrash(ids["b"]!)) { try a.restore(ids["b"]!) }
        #expect(a.location(of: ids["a"]!) == nil && a.item(ids["a"]!)?.isInTrash == true)
        #expect(a.item(ids["a"]!)?.gallery == "g" && a.item(ids["a"]!)?.trashedAt == 0)
    }

    @Test("A move right after a slot puts an item back where it stood, across galleries")
    func moveRightAfterSlot() throws {
        var (a, _, ids) = try Schedules.pair()
        try a.createGallery("h")
        let before = try #require(a.placement(of: ids["b"]!))
        let away = try a.move(ids["b"]!, to: "h", at: 0)
        #expect(a.placement(of: ids["b"]!) == away.id)
        try a.move(ids["b"]!, rightAfter: before)
        #expect(Schedules.titles(a) == ["a", "b", "c", "d", "e"] && Schedules.titles(a, "h").isEmpty)
    }
}

/// What one replica shows of `g` and of the Trash after a delivery order.
struct SimulationOutcomeView: Equatable {
    var gallery: [String]
    var trash: [String]
    var converged: Bool
}

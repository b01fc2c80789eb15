@testable import GalleryModel
import Testing

/// Galleries renamed and deleted (docs/design.md, "Galleries renamed and deleted").
@Suite("Galleries renamed and deleted")
struct GalleryRenameTests {
    @Test("Two renames of one gallery: the greater op ID wins; ops naming the old identity still land")
    func concurrentRenames() throws {
        var (a, b, ids) = try Schedules.pair()
        let first = try a.renameGallery("g", to: "holiday")
        let second = try b.renameGallery("g", to: "trip")
        // B has not seen the rename: its insert names the identity, which is all an op names.
        try b.insert([.titled("x")], into: "trip", at: 0)
        Schedules.sync(&a, &b)
        let winner = first.id > second.id ? "holiday" : "trip"
        #expect(a.galleries == [winner] && b.galleries == [winner])
        #expect(Schedules.titles(a, winner) == ["x", "a", "b", "c", "d", "e"])
        #expect(a.item(ids["a"]!)?.gallery == winner && a.location(of: ids["a"]!)?.gallery == winner)
        #expect(a.galleryIdentity(of: winner) == "g" && !a.hasGallery("g"))
    }

    @Test("Rename vs delete of one gallery: the greater op ID wins")
    func renameVersusDelete() throws {
        var (a, b, _) = try Schedules.pair()
        let rename = try a.renameGallery("g", to: "kept")
        let delete = try b.deleteGallery("g")
        Schedules.sync(&a, &b)
        #expect(a.galleries == b.galleries)
        #expect(a.galleries == (rename.id > delete.id ? ["kept"] : []))
        #expect(a.trash.count == (rename.id > delete.id ? 0 : 5))
    }

    @Test("A name taken by another gallery is refused; two galleries given one name at once are told apart")
    func names() throws {
        var (a, b, _) = try Schedules.pair()
        try a.createGallery("h")
        Schedules.sync(&a, &b)
        #expect(throws: ModelError.galleryNameTaken("h")) { try a.renameGallery("g", to: "h") }
        try a.renameGallery("g", to: "same")
        try b.renameGallery("h", to: "same")
        Schedules.sync(&a, &b)
        #expect(a.galleries == ["same (g)", "same (h)"] || a.galleries == ["same", "same (h)"] || a.galleries == ["same", "same (g)"])
        #expect(a.galleries == b.galleries && a.galleries.count == 2)
        // Creating a name that is a renamed gallery's identity is refused (it would bring that one back).
        #expect(throws: ModelError.galleryNameTaken("g")) { try a.createGallery("g") }
    }

    @Test("A deleted gallery comes back when its name is created again, with the items not trashed")
    func recreateDeleted() throws {
        var (a, _, _) = try Schedules.pair()
        try a.deleteGallery("g")
        #expect(!a.hasGallery("g") && a.trash.count == 5)
        let op = try a.createGallery("g")
        guard case .renameGallery(name: "g", to: "g") = op.action else { Issue.record("\(op.action)"); return }
        #expect(Schedules.titles(a) == ["a", "b", "c", "d", "e"] && a.trash.isEmpty)
    }

    @Test("New ops round-trip through both encodings, and the snapshot keeps the registers")
    func encodings() throws {
        var (a, _, ids) = try Schedules.pair()
        try a.createGallery("h")
        try a.renameGallery("g", to: "renamed ✓")
        try a.deleteGallery("h")
        try a.trash(ids["c"]!, at: 1_700_000_000_000)
        let ops = a.ops
        #expect(try OpCodec.decode(OpCodec.encode(ops)) == ops)
        var sending = CompactOpTables()
        var receiving = CompactOpTables()
        #expect(try OpCodec.decodeCompact(OpCodec.encodeCompact(ops, tables: &sending), tables: &receiving) == ops)
        var transcoding = CompactOpTables()
        var reading = CompactOpTables()
        for batch in try OpCodec.transcodeCompactBatches(OpCodec.encode(ops), maximumBytes: 1 << 20, tables: &transcoding) {
            guard case .compact(let payload) = batch else { Issue.record("canonical batch"); continue }
            #expect(try OpCodec.decodeCompact(payload, tables: &reading) == ops)
        }
        let restored = try Replica(decodingState: a.encodedState())
        #expect(restored.encodedState() == a.encodedState())
        #expect(restored.galleries == ["renamed ✓"] && restored.trash.map(\.id) == [ids["c"]!])
        #expect(Schedules.titles(restored, "renamed ✓") == ["a", "b", "d", "e"])
        var fresh = Replica(id: ReplicaID(9))
        for op in ops.reversed() { fresh.receive(op) }
        #expect(fresh.galleries == a.galleries && fresh.trash.map(\.id) == a.trash.map(\.id))
    }
}

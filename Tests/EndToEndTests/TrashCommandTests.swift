import Foundation
import GalleryTestSupport
import Testing

/// The Trash, gallery renames and deletes, and undo/redo through `gallery -C DIR` and the web API,
/// against real `gallery serve` processes; and across two nodes: trashed on one, restored on the
/// other, both converge.
@Suite("Trash, gallery renames and undo across processes", .serialized)
struct TrashCommandTests {
    private func gallery(_ directory: URL, _ arguments: String...) throws -> GalleryProcess.Result {
        try GalleryProcess.run(["-C", directory.path] + arguments)
    }

    /// `list GALLERY --json`'s item IDs (empty when the gallery is not there).
    private func ids(_ directory: URL, _ name: String) throws -> [String] {
        let result = try gallery(directory, "list", name, "--json")
        guard result.status == 0 else { return [] }
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (object?["items"] as? [[String: Any]] ?? []).map { $0["id"] as? String ?? "" }
    }

    /// `list --trash --json`'s items.
    private func trash(_ directory: URL) throws -> [[String: Any]] {
        let result = try gallery(directory, "list", "--trash", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["trash"] as? [[String: Any]] ?? []
    }

    private func waitUntil(timeout: TimeInterval = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    @Test("delete moves to the Trash; list --trash, undo, redo, restore, empty-trash, rename-gallery, delete-gallery; bad arguments")
    func commandLine() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-trash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let directory = base.appendingPathComponent("alice")
        let node = try ServeProcess([directory.path, "--name", "alice"])
        defer { #expect(node.stop() == 0) }
        let added = try gallery(directory, "add", "https://example.org/a.png", "https://example.org/b.png",
                                "https://example.org/c.png", "https://example.org/d.png")
        let all = added.stdout.split(separator: "\n").map(String.init)
        #expect(all.count == 4)

        let deleted = try gallery(directory, "delete", "alice:1", "alice:2")
        #expect(deleted.status == 0 && deleted.stdout == "Moved 2 items to Trash\n", "\(deleted.stdout) \(deleted.stderr)")
        #expect(try ids(directory, "alice") == [all[0], all[3]])
        let trashed = try trash(directory)
        #expect(trashed.map { $0["id"] as? String } == [all[1], all[2]])
        #expect(trashed.allSatisfy { $0["from"] as? String == "alice" && ($0["trashedAt"] as? Int ?? 0) > 1_600_000_000_000 })
        let again = try gallery(directory, "delete", all[1])
        #expect(again.status == 1 && again.stderr.contains("is in the Trash"), "\(again.stderr)")

        // Undo brings both back where they were; redo sends them again; restore takes one back.
        #expect(try gallery(directory, "undo").stdout == "Undid: Moved 2 items to Trash\n")
        #expect(try ids(directory, "alice") == all)
        #expect(try gallery(directory, "redo").stdout == "Redid: Moved 2 items to Trash\n")
        #expect(try ids(directory, "alice") == [all[0], all[3]])
        #expect(try gallery(directory, "restore", all[2]).stdout == "Restored 1 item\n")
        #expect(try ids(directory, "alice") == [all[0], all[2], all[3]])
        let notThere = try gallery(directory, "restore", all[0])
        #expect(notThere.status == 1 && notThere.stderr.contains("is not in the Trash"))

        // Empty Trash deletes for good: nothing brings it back.
        #expect(try gallery(directory, "empty-trash").stdout == "Deleted 1 item for good\n")
        #expect(try trash(directory).isEmpty)
        let gone = try gallery(directory, "restore", all[1])
        #expect(gone.status == 1 && gone.stderr.contains("was deleted"))

        // A gallery renamed, then deleted (its item to the Trash), then both undone.
        #expect(try gallery(directory, "new-gallery", "trip").status == 0)
        #expect(try gallery(directory, "move", all[0], "--to", "trip", "--at", "0").status == 0)
        #expect(try gallery(directory, "rename-gallery", "trip", "holiday").stdout == "Renamed “trip” to “holiday”\n")
        #expect(try gallery(directory, "galleries").stdout == "alice\nholiday\n")
        #expect(try gallery(directory, "delete-gallery", "holiday").stdout == "Deleted “holiday” (1 item to Trash)\n")
        #expect(try gallery(directory, "galleries").stdout == "alice\n")
        #expect(try trash(directory).map { $0["from"] as? String } == ["holiday"])
        #expect(try gallery(directory, "undo").status == 0)
        #expect(try ids(directory, "holiday") == [all[0]])
        #expect(try gallery(directory, "undo").stdout == "Undid: Renamed “trip” to “holiday”\n")
        #expect(try gallery(directory, "galleries").stdout == "alice\ntrip\n")

        // Bad arguments: one line and the usage, exit 64; a refusal: exit 1, nothing changed.
        let usage = try gallery(directory, "rename-gallery", "trip")
        #expect(usage.status == 64 && usage.stderr.contains("usage: gallery -C DIR rename-gallery"))
        let trashList = try gallery(directory, "list", "trip", "--trash")
        #expect(trashList.status == 64)
        let taken = try gallery(directory, "rename-gallery", "trip", "alice")
        #expect(taken.status == 1 && taken.stderr.contains("taken"), "\(taken.stderr)")
        let unknown = try gallery(directory, "delete-gallery", "nowhere")
        #expect(unknown.status == 1 && unknown.stderr.contains("no gallery named"))
    }

    @Test("Two nodes: trashed on alice, restored on bob, renamed on bob; both show the same galleries and the same Trash")
    func trashOnOneRestoreOnTheOther() throws {
        let pair = try NodePair(peered: true)
        defer { pair.stop() }
        let (alice, bob) = (pair.alice, pair.bob)
        let added = try gallery(alice, "add", "https://example.org/1.png", "https://example.org/2.png", "https://example.org/3.png")
        let all = added.stdout.split(separator: "\n").map(String.init)
        #expect(try waitUntil { try ids(bob, "alice") == all })

        #expect(try gallery(alice, "delete", all[0], all[1]).status == 0)
        #expect(try waitUntil { try trash(bob).count == 2 })
        #expect(try ids(bob, "alice") == [all[2]])
        #expect(try gallery(bob, "restore", all[1]).status == 0)
        #expect(try gallery(bob, "rename-gallery", "alice", "Alice’s").status == 0)
        #expect(try waitUntil { try gallery(alice, "galleries").stdout.contains("Alice’s") })
        // alice's own gallery, renamed: `add` without --to still adds to it.
        let more = try gallery(alice, "add", "https://example.org/4.png")
        #expect(more.status == 0, "\(more.stderr)")
        let fourth = more.stdout.trimmingCharacters(in: .newlines)
        #expect(try waitUntil { try ids(alice, "Alice’s") == [all[1], all[2], fourth] })
        #expect(try trash(alice).map { $0["id"] as? String } == [all[0]])
        #expect(try trash(alice).first?["from"] as? String == "Alice’s")
        #expect(try gallery(alice, "galleries").stdout == gallery(bob, "galleries").stdout)
        #expect(try waitUntil { try ids(bob, "Alice’s") == [all[1], all[2], fourth] })

        // Bob's undo takes back bob's rename only; alice's trash is not bob's to undo.
        #expect(try gallery(bob, "undo").stdout == "Undid: Renamed “alice” to “Alice’s”\n")
        #expect(try gallery(bob, "undo").stdout == "Undid: Restored 1 item\n")
        #expect(try waitUntil { try trash(alice).count == 2 && ids(alice, "alice") == [all[2], fourth] })
        let nothing = try gallery(bob, "undo")
        #expect(nothing.status == 1 && nothing.stderr.contains("nothing to undo"))
    }

    @Test("Web API: delete answers an undo entry; GET /api/trash; undo and redo; restore; rename and delete a gallery; Empty Trash")
    func webAPI() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-trash-web-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("web", base: base)
        defer { node.stop() }
        let added = try node.gallery("add", "https://example.org/1.png", "https://example.org/2.png", "https://example.org/3.png")
        let all = added.stdout.split(separator: "\n").map(String.init)

        let deleted = try node.post("/api/items/delete", ["items": [all[0], all[2]]])
        #expect(deleted.status == 200 && deleted.json["message"] as? String == "Moved 2 items to Trash")
        let entry = try #require(deleted.json["undo"] as? Int)
        let listed = try node.get("/api/trash")
        #expect((listed.json["items"] as? [[String: Any]])?.map { $0["id"] as? String } == [all[0], all[2]])
        #expect((listed.json["items"] as? [[String: Any]])?.first?["from"] as? String == "web")

        let undone = try node.post("/api/undo", ["entry": entry])
        #expect(undone.json["message"] as? String == "Undid: Moved 2 items to Trash")
        #expect(try ids(node.directory, "web") == all)
        let redoEntry = try #require(undone.json["undo"] as? Int)
        let redone = try node.post("/api/undo", ["entry": redoEntry, "redo": true])
        #expect(redone.json["message"] as? String == "Redid: Moved 2 items to Trash")
        #expect(try ids(node.directory, "web") == [all[1]])

        // Someone else (the command line) restores one since: the page's undo leaves it and says so.
        #expect(try node.gallery("restore", all[0]).status == 0)
        let partial = try node.post("/api/undo", ["entry": try #require(redone.json["undo"] as? Int)])
        #expect(partial.json["message"] as? String == "Undid: Moved 2 items to Trash; 1 item left as it is (changed by someone else since)")
        #expect(partial.json["skipped"] as? [String] == [all[0]])
        #expect(try ids(node.directory, "web") == all)

        let restored = try node.post("/api/items/restore", ["items": [all[0]]])
        #expect(restored.json["error"] as? String == "notInTrash")
        #expect(try node.post("/api/items/delete", ["items": [all[1]]]).status == 200)

        #expect(try node.post("/api/galleries", ["name": "trip"]).status == 201)
        let renamed = try node.post("/api/galleries/rename", ["gallery": "trip", "name": "holiday"])
        #expect(renamed.status == 200 && renamed.json["gallery"] as? String == "holiday")
        #expect(try node.post("/api/galleries/rename", ["gallery": "holiday", "name": "web"]).json["error"] as? String == "galleryExists")
        let gone = try node.post("/api/galleries/delete", ["gallery": "holiday"])
        #expect(gone.status == 200 && gone.json["message"] as? String == "Deleted “holiday” (0 items to Trash)")
        #expect(try node.post("/api/undo", ["entry": try #require(gone.json["undo"] as? Int)]).status == 200)
        #expect(try node.gallery("galleries").stdout == "holiday\nweb\n")
        #expect(try node.post("/api/undo", ["entry": 999_999]).json["error"] as? String == "undoExpired")

        let emptied = try node.post("/api/trash/empty", [:])
        #expect(emptied.json["deleted"] as? Int == 1)
        #expect((try node.get("/api/trash").json["items"] as? [Any])?.isEmpty == true)
    }
}

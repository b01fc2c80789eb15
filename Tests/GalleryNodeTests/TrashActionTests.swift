import Foundation
import GalleryModel
@testable import GalleryNode
import GalleryWire
import Testing

/// The Trash's use cases in process: the 30-day expiry, and undo chains over one node's journal.
@Suite("Trash and undo use cases")
struct TrashActionTests {
    /// A node with a gallery `node` of four URL items.
    private func node() throws -> (SyncNode, [OpID]) {
        let node = SyncNode(
            configuration: NodeConfiguration(name: "node", secret: Array("trash actions".utf8), log: .silent, persist: { _, _ in }),
            replica: Replica(id: ReplicaID(deriving: "node")))
        try node.perform { try $0.createGallery("node") }
        let urls = (0..<4).map { AddSource.url("https://example.org/\($0).png") }
        let ids = try AddImage.perform(AddRequest(sources: urls), defaultGallery: "node", on: node)
        return (node, ids)
    }

    @Test("Items stay 30 days in the Trash, then a real delete removes them; items of a deleted gallery are dated, then expire")
    func expiry() throws {
        let (node, ids) = try node()
        try TrashItems.trash([ids[0]], on: node)
        let trashedAt = try #require(node.read { $0.item(ids[0])?.trashedAt })
        let day: Int64 = 24 * 3600 * 1000
        #expect(try TrashItems.expire(on: node, now: trashedAt + 29 * day) == 0)
        #expect(node.read { $0.trash.map(\.id) } == [ids[0]])
        #expect(try TrashItems.expire(on: node, now: trashedAt + 30 * day) == 1)
        #expect(node.read { $0.item(ids[0])?.isDeleted } == true)
        #expect(node.read { $0.ops.last?.action } == .delete(item: ids[0]))

        // A gallery deleted by an op alone (as a concurrent insert would find it): its items get a date first.
        try node.perform { replica in
            try replica.createGallery("other")
            try replica.move(ids[1], to: "other", at: 0)
            try replica.deleteGallery("other")
        }
        #expect(node.read { $0.item(ids[1]).map { $0.isInTrash && $0.trashedAt == nil } } == true)
        let now = TrashItems.now()
        #expect(try TrashItems.expire(on: node, now: now) == 0)
        #expect(node.read { $0.item(ids[1])?.trashedAt } == now)
        #expect(try TrashItems.expire(on: node, now: now + 31 * day) == 1)
        #expect(node.read { $0.trash.isEmpty })
    }

    @Test("A chain of actions undone newest first, then redone: each register comes back, whoever made the last word")
    func undoChain() throws {
        let (node, ids) = try node()
        let scope = "test"
        func undo(redo: Bool = false) throws -> String {
            let entry = try #require(node.undo.pop(scope, redo: redo))
            let outcome = try UndoAction.perform(entry, redo: redo, on: node)
            if let back = outcome.entry { node.undo.push(back, scope, redo: !redo) }
            return outcome.message
        }
        let titles = { node.read { (try? $0.items(in: "node").map { $0.title ?? "" }) ?? [] } }
        let original = titles()
        try MoveItems.perform([ids[0]], to: "node", at: 3, on: node, scope: scope)
        try node.perform { replica in
            node.undo.record("t1", [try UpdateItems.set(ids[1], .title, to: .text("one"), in: &replica)], scope: scope)
        }
        try node.perform { replica in
            node.undo.record("t2", [try UpdateItems.set(ids[1], .title, to: .text("two"), in: &replica)], scope: scope)
        }
        try TrashItems.trash([ids[2], ids[3]], on: node, scope: scope)
        try GalleryChanges.rename("node", to: "renamed", on: node, scope: scope)
        try GalleryChanges.delete("renamed", on: node, scope: scope)
        #expect(node.read { $0.galleries.isEmpty && $0.trash.count == 4 })

        for _ in 0..<6 { _ = try undo() }
        #expect(node.read { $0.galleries } == ["node"])
        #expect(titles() == original)
        #expect(node.read { $0.trash.isEmpty })
        #expect(node.undo.pop(scope, redo: false) == nil)

        for _ in 0..<6 { _ = try undo(redo: true) }
        #expect(node.read { $0.galleries.isEmpty && $0.trash.count == 4 })
        #expect(node.read { $0.item(ids[1])?.title } == "two")
    }

    @Test("An undo skips what someone else changed since and says so")
    func undoSkipsOthers() throws {
        let (node, ids) = try node()
        let entry = try #require(try TrashItems.trash([ids[0], ids[1]], on: node).entry)
        // Another replica restores one of them, then moves it: its ops arrive here.
        var other = Replica(id: ReplicaID(deriving: "other"))
        for op in node.read({ $0.ops }) { other.receive(op) }
        try other.restore(ids[0])
        let moved = try other.move(ids[0], to: "node", at: 2)
        try node.perform { replica in for op in other.ops(missingFrom: replica.version) { replica.receive(op) } }
        let outcome = try UndoAction.perform(entry, on: node)
        #expect(outcome.skipped == [ids[0].description])
        #expect(outcome.message == "Undid: Moved 2 items to Trash; 1 item left as it is (changed by someone else since)")
        #expect(node.read { $0.trash.isEmpty && (try? $0.items(in: "node").count) == 4 })
        #expect(node.read { $0.placement(of: ids[0]) } == moved.id)
    }
}

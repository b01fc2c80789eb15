import GalleryModel
import Testing

/// `livePlaceholders(insertedBy:)`: the transfers a replica has left to finish after a restart.
@Suite("Live placeholders")
struct PlaceholderQueryTests {
    @Test("only the replica's own placeholders that are neither committed nor deleted, oldest first, across galleries")
    func livePlaceholders() throws {
        var alice = Replica(id: ReplicaID(deriving: "alice"))
        var bob = Replica(id: ReplicaID(deriving: "bob"))
        try alice.createGallery("a")
        try alice.createGallery("b")
        let run = try alice.insert([.placeholder("p1"), .placeholder("p2"), .placeholder("p3")], into: "a", at: 0)
        let (p1, p2, p3) = (run.id, run.id.advanced(by: 1), run.id.advanced(by: 2))
        let ready = try alice.insert([.titled("ready")], into: "b", at: 0).id
        let later = try alice.insert([.placeholder("p4")], into: "b", at: 0).id
        try alice.commit(p2)
        try alice.delete(p3)
        try alice.move(p1, to: "b", at: 2)
        try bob.createGallery("c")
        let bobs = try bob.insert([.placeholder("q")], into: "c", at: 0).id
        for op in bob.ops { _ = alice.receive(op) }

        #expect(alice.livePlaceholders(insertedBy: alice.id).map(\.id) == [p1, later])
        #expect(alice.livePlaceholders(insertedBy: alice.id).map(\.gallery) == ["b", "b"])
        #expect(alice.livePlaceholders(insertedBy: bob.id).map(\.id) == [bobs])
        #expect(alice.livePlaceholders(insertedBy: ReplicaID(deriving: "nobody")).isEmpty)
        #expect(!alice.livePlaceholders(insertedBy: alice.id).map(\.id).contains(ready))
    }
}

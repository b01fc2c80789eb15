import Foundation
import GalleryModel
import GalleryWire
import Testing

/// Parsing of item references (`COUNTER@REPLICA` | `GALLERY:INDEX`) and drag sources.
@Suite("Item references")
struct ItemReferenceTests {
    @Test("COUNTER@REPLICA is an ID; GALLERY:INDEX a place, split at the last colon")
    func parsing() {
        #expect(ItemReference("12@00000000000000a1") == .id(OpID(counter: 12, replica: ReplicaID(0xa1))))
        #expect(ItemReference("alice:0") == .position(gallery: "alice", index: 0))
        #expect(ItemReference("a:b:7") == .position(gallery: "a:b", index: 7))
        #expect(ItemReference(":3") == .position(gallery: "", index: 3))
        for text in ["alice", "alice:", "alice:x", "0@zz", "@00000000000000a1", "", "alice:1.5"] {
            #expect(ItemReference(text) == nil, "\(text)")
        }
    }

    @Test("a reference prints as the text it was parsed from", arguments: ["12@00000000000000a1", "alice:0", "a:b:7"])
    func description(text: String) throws {
        #expect(try #require(ItemReference(text)).description == text)
    }

    @Test("a drag source is an item when it parses as one, else a gallery's name")
    func dragSources() {
        #expect(DragSource("alice:2") == .item(.position(gallery: "alice", index: 2)))
        #expect(DragSource("5@00000000000000a1") == .item(.id(OpID(counter: 5, replica: ReplicaID(0xa1)))))
        #expect(DragSource("alice") == .gallery("alice"))
        #expect(DragSource("alice").description == "alice")
    }

    @Test("in JSON a reference is its text; a bad one fails with the reason")
    func json() throws {
        let references: [ItemReference] = [.id(OpID(counter: 1, replica: ReplicaID(2))), .position(gallery: "g", index: 4)]
        let data = try JSONEncoder().encode(references)
        #expect(String(decoding: data, as: UTF8.self) == #"["1@0000000000000002","g:4"]"#)
        #expect(try JSONDecoder().decode([ItemReference].self, from: data) == references)
        #expect(throws: Swift.DecodingError.self) { try JSONDecoder().decode([ItemReference].self, from: Data(#"["nope"]"#.utf8)) }
    }
}

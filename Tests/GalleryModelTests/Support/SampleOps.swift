@testable import GalleryModel

/// Ops for codec tests (`OpCodecTests`, `CompactOpCodecTests`).
enum SampleOps {
    static let a = ReplicaID(0xA1), b = ReplicaID(0xB2), c = ReplicaID(0xC3)

    /// Every op kind and every reference form: none, `0x01` (same replica), `0x02` (another
    /// replica, in anchors, in an item reference and in an `origin` value), two galleries.
    static func everyKind() throws -> [Op] {
        var a = Replica(id: Self.a)
        var b = Replica(id: Self.b)
        try a.createGallery("g")
        try a.createGallery("ünïcode gallery")
        let run = try a.insert([
            .titled("one"), .placeholder("two"),
            ItemDraft(fields: [.title: .text("three"), .url: .text("https://example.com/x.png"),
                               .aspectRatio: .number(1.5), .byteSize: .integer(42), .mediaType: .text("image/png"),
                               .contentHash: .text(String(repeating: "ab", count: 32)),
                               .origin: .id(OpID(counter: 7, replica: Self.c))]),
        ], into: "g", at: 0)
        for op in a.ops { b.receive(op) }
        let fromB = try b.insert([.titled("from b")], into: "g", at: 1)
        try b.update(run.id, .origin, to: .id(OpID(counter: 99, replica: Self.c)))
        try b.move(run.id.advanced(by: 1), to: "ünïcode gallery", at: 0)
        for op in b.ops(missingFrom: a.version) { a.receive(op) }
        try a.move(run.id.advanced(by: 2), to: "ünïcode gallery", at: 0)
        try a.commit(run.id.advanced(by: 1))
        try a.update(run.id, .aspectRatio, to: .none)
        try a.delete(run.id)
        try a.delete(fromB.id)
        return a.ops
    }
}

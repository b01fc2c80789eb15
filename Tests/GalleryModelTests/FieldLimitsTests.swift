@testable import GalleryModel
import Testing

/// Every bound of `FieldLimits`, just under, at and just over, at the model's commands and at the
/// op decoder; and the ops a refused value would have made are never made.
@Suite("Field bounds")
struct FieldLimitsTests {
    /// A text of `count` bytes.
    static func text(_ count: Int, _ character: Character = "x") -> String {
        String(repeating: character, count: count)
    }

    /// A content hash of `count` hex digits.
    static func hash(_ count: Int) -> String { text(count, "a") }

    /// Values of one field: each with whether it is within the bounds.
    static let cases: [(ItemField, FieldValue, Bool)] = [
        (.title, .text(""), true),
        (.title, .text(text(1_023)), true),
        (.title, .text(text(1_024)), true),
        (.title, .text(text(1_025)), false),
        (.title, .text(text(65_536)), false),
        // Multi-byte characters count in bytes: 512 x "é" is 1,024 bytes.
        (.title, .text(text(512, "é")), true),
        (.title, .text(text(512, "é") + "x"), false),
        (.url, .text(""), false),
        (.url, .text(text(1)), true),
        (.url, .text(text(8_191)), true),
        (.url, .text(text(8_192)), true),
        (.url, .text(text(8_193)), false),
        (.mediaType, .text(""), false),
        (.mediaType, .text(text(254)), true),
        (.mediaType, .text(text(255)), true),
        (.mediaType, .text(text(256)), false),
        (.contentHash, .text(hash(63)), false),
        (.contentHash, .text(hash(64)), true),
        (.contentHash, .text(hash(65)), false),
        (.contentHash, .text("0123456789abcdef" + hash(48)), true),
        (.contentHash, .text("A" + hash(63)), false),
        (.contentHash, .text("g" + hash(63)), false),
        (.aspectRatio, .number(1.0 / 65_536), true),
        (.aspectRatio, .number((1.0 / 65_536).nextUp), true),
        (.aspectRatio, .number((1.0 / 65_536).nextDown), false),
        (.aspectRatio, .number(65_536), true),
        (.aspectRatio, .number(Double(65_536).nextDown), true),
        (.aspectRatio, .number(Double(65_536).nextUp), false),
        (.aspectRatio, .number(0), false),
        (.aspectRatio, .number(-1.5), false),
        (.aspectRatio, .number(.infinity), false),
        (.aspectRatio, .number(.nan), false),
        (.byteSize, .integer(-1), false),
        (.byteSize, .integer(0), true),
        (.byteSize, .integer((1 << 40) - 1), true),
        (.byteSize, .integer(1 << 40), true),
        (.byteSize, .integer((1 << 40) + 1), false),
        (.byteSize, .integer(.min), false),
    ]

    @Test("Every field value just under, at and just over its bound: update and insert refuse exactly those over, changing nothing")
    func fieldsAtTheModelsCommands() throws {
        for (field, value, allowed) in Self.cases {
            var replica = Replica(id: ReplicaID(1))
            try replica.createGallery("g")
            let item = try replica.insert([.titled("a")], into: "g", at: 0).id
            let before = replica.version
            let label = "\(field) of \(Self.describe(value))"
            do {
                try replica.update(item, field, to: value)
                #expect(allowed, "update accepted \(label)")
            } catch {
                #expect(!allowed, "update refused \(label): \(error)")
                guard case .outOfBounds = error else { Issue.record("update of \(label): \(error)"); continue }
                #expect(replica.version == before)
            }
            for make in [Self.insertOne, Self.insertRunOfOne] {
                var other = Replica(id: ReplicaID(2))
                try other.createGallery("g")
                let ops = other.opCount
                do {
                    try make(&other, ItemDraft(fields: [field: value]))
                    #expect(allowed, "insert accepted \(label)")
                } catch {
                    #expect(!allowed, "insert refused \(label): \(error)")
                    #expect(error.localizedDescription.contains("\(field)"), "\(error.localizedDescription)")
                    #expect(other.opCount == ops)
                }
            }
        }
    }

    @Test("Gallery names: 1 to 255 bytes, at create and in the decoder (create, insert, move)")
    func galleryNames() throws {
        for (name, allowed) in [("", false), (Self.text(1), true), (Self.text(254), true), (Self.text(255), true),
                                (Self.text(256), false), (Self.text(65_536), false)] {
            let label = "\(name.utf8.count) bytes"
            var replica = Replica(id: ReplicaID(1))
            #expect(((try? replica.createGallery(name)) != nil) == allowed, "\(label)")
            #expect((FieldLimits.problem(withGalleryName: name) == nil) == allowed, "\(label)")
            let ops: [Op.Action] = [
                .createGallery(name: name),
                .insert(gallery: name, after: nil, before: nil, items: [ItemDraft()]),
                .move(item: OpID(counter: 1, replica: ReplicaID(1)), gallery: name, after: nil, before: nil),
            ]
            for action in ops {
                let bytes = OpCodec.encode([Op(id: OpID(counter: 2, replica: ReplicaID(1)), previous: 1, action: action)])
                do {
                    _ = try OpCodec.decode(bytes)
                    #expect(allowed, "\(label) decoded")
                } catch {
                    #expect(!allowed, "\(label): \(error)")
                    if name.utf8.count <= OpCodec.maxStringBytes { #expect(error == .outOfBounds("op 2@0000000000000001: " + FieldLimits.problem(withGalleryName: name)!)) }
                }
            }
        }
    }

    @Test("Items per insert: 4,096 in one op, 4,097 refused by insert and split in two by insertRun")
    func itemsPerInsert() throws {
        var replica = Replica(id: ReplicaID(1))
        try replica.createGallery("g")
        let full = try replica.insert(Array(repeating: ItemDraft(), count: 4_096), into: "g", at: 0)
        #expect(full.span == 4_096)
        #expect(throws: ModelError.self) { try replica.insert(Array(repeating: ItemDraft(), count: 4_097), into: "g", at: 0) }
        #expect(replica.opCount == 2)
        let ops = try replica.insertRun(Array(repeating: ItemDraft(), count: 4_097), into: "g", at: 0)
        #expect(ops.map(\.span) == [4_096, 1])
        #expect(try replica.count(in: "g") == 8_193)
        #expect(throws: ModelError.emptyInsert) { try replica.insertRun([], into: "g", at: 0) }
    }

    /// Drafts whose one insert op, made next on a copy of `replica` at index 0 of "g", encodes in
    /// exactly `size` bytes.
    static func drafts(encodingTo size: Int, on replica: Replica) throws -> [ItemDraft] {
        var drafts = Array(repeating: ItemDraft.titled(text(990)), count: 64) + [.titled(text(500))]
        var probe = replica
        let probeSize = OpCodec.encodedSize(of: try probe.insert(drafts, into: "g", at: 0))
        let last = 500 + size - probeSize
        try #require((128...1_024).contains(last))
        drafts[64] = .titled(text(last))
        return drafts
    }

    @Test("One op encodes in at most 64,512 bytes: at the bound it is made, one byte over it is refused (insertRun splits it)")
    func encodedOpSize() throws {
        var replica = Replica(id: ReplicaID(1))
        try replica.createGallery("g")
        let under = try Self.drafts(encodingTo: FieldLimits.maxEncodedOpSize - 1, on: replica)
        let at = try Self.drafts(encodingTo: FieldLimits.maxEncodedOpSize, on: replica)
        let over = try Self.drafts(encodingTo: FieldLimits.maxEncodedOpSize + 1, on: replica)

        var copy = replica
        #expect(OpCodec.encodedSize(of: try copy.insert(under, into: "g", at: 0)) == FieldLimits.maxEncodedOpSize - 1)
        let made = try replica.insert(at, into: "g", at: 0)
        #expect(OpCodec.encodedSize(of: made) == FieldLimits.maxEncodedOpSize)
        #expect(try OpCodec.decode(OpCodec.encode([made])) == [made])
        let count = replica.opCount
        #expect {
            try replica.insert(over, into: "g", at: 0)
        } throws: { error in
            guard case ModelError.outOfBounds(let reason) = error else { return false }
            return reason.contains("64512")
        }
        #expect(replica.opCount == count)

        let run = try replica.insertRun(over, into: "g", at: 0)
        #expect(run.count == 2)
        #expect(run.allSatisfy { OpCodec.encodedSize(of: $0) <= FieldLimits.maxEncodedOpSize })
        #expect(try replica.items(in: "g").prefix(65).map(\.title) == over.map { $0.fields[.title]?.text })
    }

    @Test("The decoder refuses ops over a bound as outOfBounds (rejected_op on the wire), accepts them at the bound, and reads stored ones without the bounds")
    func decoderBounds() throws {
        let replica = ReplicaID(7)
        func insert(_ drafts: [ItemDraft]) -> Op {
            Op(id: OpID(counter: 2, replica: replica), previous: 1,
               action: .insert(gallery: "g", after: nil, before: nil, items: drafts))
        }
        for (field, value, allowed) in Self.cases {
            let ops = [insert([ItemDraft(fields: [field: value])]),
                       Op(id: OpID(counter: 9, replica: replica), previous: 8,
                          action: .update(item: OpID(counter: 2, replica: replica), field: field, value: value))]
            for op in ops {
                let bytes = OpCodec.encode([op])
                if allowed {
                    let decoded = try OpCodec.decode(bytes)
                    #expect(OpCodec.encode(decoded) == bytes)
                } else {
                    #expect(throws: DecodingError.self) { try OpCodec.decode(bytes) }
                    if case .text(let text) = value, text.utf8.count > OpCodec.maxStringBytes { continue }
                    if case .number(let number) = value, number.isNaN { continue }
                    #expect(try OpCodec.decode(bytes, checkingBounds: false) == [op], "\(field)")
                }
            }
        }
        // Too many items, and too many bytes, in one op.
        let manyItems = OpCodec.encode([insert(Array(repeating: ItemDraft(), count: 4_097))])
        #expect(throws: DecodingError.self) { try OpCodec.decode(manyItems) }
        #expect(try OpCodec.decode(manyItems, checkingBounds: false)[0].span == 4_097)
        let big = insert(Array(repeating: .titled(Self.text(1_000)), count: 65))
        #expect(OpCodec.encodedSize(of: big) > FieldLimits.maxEncodedOpSize)
        do {
            _ = try OpCodec.decode(OpCodec.encode([big]))
            Issue.record("an op over 64,512 bytes was decoded")
        } catch {
            guard case .outOfBounds(let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("64512"))
        }
    }

    @Test("An op that the log could not read back (a text over 65,535 bytes) is refused by receive, not trapped on later")
    func unencodableOpsAreRefused() throws {
        var replica = Replica(id: ReplicaID(1))
        try replica.createGallery("g")
        let peer = ReplicaID(2)
        let huge = Op(id: OpID(counter: 5, replica: peer), previous: 0, action: .insert(
            gallery: "g", after: nil, before: nil, items: [.titled(Self.text(65_536))]))
        guard case .rejected = replica.receive(huge) else {
            Issue.record("an op with a 65,536-byte title was applied")
            return
        }
        let zero = Op(id: OpID(counter: 6, replica: peer), previous: 0, action: .insert(
            gallery: "g", after: nil, before: nil, items: [ItemDraft(fields: [.origin: .id(OpID(counter: 0, replica: peer))])]))
        guard case .rejected = replica.receive(zero) else {
            Issue.record("an op referencing counter 0 was applied")
            return
        }
        #expect(replica.ops.count == 1)
        // Within the encoding but over today's bounds (what an earlier version may have stored): kept.
        let old = Op(id: OpID(counter: 7, replica: peer), previous: 0, action: .insert(
            gallery: "g", after: nil, before: nil, items: [.titled(Self.text(2_000))]))
        guard case .applied = replica.receive(old) else {
            Issue.record("a stored op of an earlier version was refused")
            return
        }
        #expect(replica.ops.last == old)
    }

    @Test("A default title from a long name is cut to the bound at a character boundary")
    func truncatedTitles() {
        #expect(FieldLimits.truncatedTitle("short") == "short")
        #expect(FieldLimits.truncatedTitle(Self.text(1_024)) == Self.text(1_024))
        #expect(FieldLimits.truncatedTitle(Self.text(5_000)) == Self.text(1_024))
        let accented = FieldLimits.truncatedTitle("x" + Self.text(600, "é"))
        #expect(accented.utf8.count == 1_023 && accented.hasSuffix("é"))
    }

    // MARK: Helpers

    static func insertOne(_ replica: inout Replica, _ draft: ItemDraft) throws {
        try replica.insert([draft], into: "g", at: 0)
    }

    static func insertRunOfOne(_ replica: inout Replica, _ draft: ItemDraft) throws {
        try replica.insertRun([.titled("first"), draft], into: "g", at: 0)
    }

    static func describe(_ value: FieldValue) -> String {
        if case .text(let text) = value { return "\(text.utf8.count) bytes" }
        return "\(value)"
    }
}

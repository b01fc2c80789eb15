import Foundation
import GalleryModel
import Testing

/// Damaged and forged op logs across real `gallery serve` processes: a byte flipped in the log and
/// in its mirror (`oplog.mirror`) loses only its record, and peers give it back; a tail cut off both
/// makes a new incarnation, so no op ID is used twice; a second version of an op ID is refused and
/// reported. (A byte flipped in one copy alone loses nothing: `MirroredLogProcessTests`.)
@Suite("Damaged op logs", .serialized)
struct DamagedLogTests {
    /// Adds `count` URL items to node `name`'s own gallery, one command each; their IDs.
    private func addItems(_ space: NodeSpace, on name: String, count: Int, from first: Int = 0) throws -> [String] {
        try (first..<(first + count)).map { index in
            let result = try space.gallery(name, "add", "https://example.org/\(index).jpg", "--title", "t\(index)")
            try #require(result.status == 0, "add \(index): \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// The index of the record of the op with this ID.
    private func recordIndex(_ log: OpLogBytes, _ id: String) throws -> Int {
        let opID = try #require(OpID(id))
        let index = try log.index(of: opID)
        return try #require(index, "no record of \(id)")
    }

    @Test("One byte flipped in the middle of the op log and of its mirror: 19 of 20 ops kept, the lost one reported by ID until a peer gives it back")
    func flippedByteLosesOnlyItsRecord() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("a")
        try space.start("p", peers: ["a"])
        #expect(try space.waitUntil { try space.items(on: "a", "p") != nil })
        let ids = try addItems(space, on: "a", count: 20)
        #expect(try space.waitUntil { try space.ids(on: "p", "a") == ids })
        #expect(space.stop("p") && space.stop("a"))

        let url = space.directory("a").appendingPathComponent("oplog")
        var log = try OpLogBytes(url)
        let recordsBefore = log.records.count
        let lost = 10
        let damaged = try recordIndex(log, ids[lost])
        log.flipByte(inRecord: damaged)
        try log.write(to: url)
        try log.write(to: space.directory("a").appendingPathComponent("oplog.mirror"))

        try space.start("a")
        let health = try space.health(of: "a")
        #expect(health.missingOps == [ids[lost]], "the lost op, by ID: \(health.missingOps)")
        #expect(try space.status(of: "a")?.buffered == 20 - lost - 1, "the intact records after it are kept")
        #expect(try space.ids(on: "a", "a") == Array(ids[..<lost]))
        let stderr = space.standardError(of: "a")
        #expect(stderr.contains("new incarnation") && stderr.contains(ids[lost]), "\(stderr)")
        let human = try space.gallery("a", "status").stdout
        #expect(human.contains("missing ops: \(ids[lost])"), "\(human)")

        try space.start("p")
        #expect(try space.waitUntil { try space.ids(on: "a", "a") == ids }, "a peer with every op gives the lost one back")
        #expect(try space.waitUntil { try space.health(of: "a").isClean })
        #expect(try space.status(of: "a")?.buffered == 0)
        #expect(space.stop("a"))
        let healed = try OpLogBytes(url)
        #expect(healed.records.count == recordsBefore, "the lost op is stored once more, the kept ones not twice")
        try space.start("a")
        #expect(try space.ids(on: "a", "a") == ids)
        #expect(try space.health(of: "a").isClean)
        #expect(!space.standardError(of: "a").contains("new incarnation"), "a repaired log is clean at the next start")
    }

    @Test("A tail cut while the peer was down: new ops take new IDs, and both nodes converge to the same state")
    func cutTailNeverReusesIDs() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("a")
        try space.start("p", peers: ["a"])
        #expect(try space.waitUntil { try space.items(on: "a", "p") != nil })
        let ids = try addItems(space, on: "a", count: 10)
        #expect(try space.waitUntil { try space.ids(on: "p", "a") == ids })
        #expect(space.stop("p"))
        #expect(space.stop("a"))

        // Cut the log and its mirror in the middle of the third record from the end: three
        // acknowledged ops that only the peer still has.
        let url = space.directory("a").appendingPathComponent("oplog")
        let log = try OpLogBytes(url)
        let cut = log.records[log.records.count - 3]
        try Data(log.bytes[..<((cut.lowerBound + cut.upperBound) / 2)]).write(to: url)
        try Data(log.bytes[..<((cut.lowerBound + cut.upperBound) / 2)]).write(to: space.directory("a").appendingPathComponent("oplog.mirror"))

        try space.start("a")
        #expect(try space.ids(on: "a", "a") == Array(ids[..<7]))
        let fresh = try addItems(space, on: "a", count: 3, from: 100)
        #expect(Set(fresh).isDisjoint(with: ids), "no op ID is used twice: \(fresh) vs \(ids)")
        let oldReplica = OpID(ids[0])?.replica
        #expect(fresh.allSatisfy { OpID($0)?.replica != oldReplica }, "a new incarnation makes the new ops")

        try space.start("p")
        // The lost ops and the new ones were inserted concurrently at one place: their order is
        // the op IDs', the same on both nodes.
        let expected = Set(ids + fresh)
        #expect(try space.waitUntil {
            let onA = try space.ids(on: "a", "a")
            let onP = try space.ids(on: "p", "a")
            return Set(onA) == expected && onA.count == expected.count && onA == onP
        })
        #expect(try space.waitUntil { try space.status(of: "a")?.version == space.status(of: "p")?.version })
        #expect(try space.column("title", on: "a", "a") == space.column("title", on: "p", "a"))
        #expect(try space.health(of: "a").isClean && space.health(of: "p").isClean)
    }

    @Test("A log forged to hold another op under an existing ID meets a peer: refused as forged (its author's signature does not cover it), reported loudly, the connection closed")
    func divergentOpIsRefused() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("a")
        let ids = try addItems(space, on: "a", count: 20)
        #expect(space.stop("a"))

        // b: a copy of a's directory whose record of op 10 is damaged, so it holds 11...19 and
        // takes 10 from a peer. a: its record of op 11 forged with another title and a valid CRC32.
        let directoryA = space.directory("a"), directoryB = space.directory("b")
        try FileManager.default.copyItem(at: directoryA, to: directoryB)
        // node.key too: a copied key is the same node identity, which a's handshake would refuse as
        // a connection to itself; b is another node that holds a damaged copy of a's log.
        for file in ["node.json", "lock", "snapshot", "ops.compact", "node.key"] {
            try? FileManager.default.removeItem(at: directoryB.appendingPathComponent(file))
        }
        let urlB = directoryB.appendingPathComponent("oplog")
        var logB = try OpLogBytes(urlB)
        logB.flipByte(inRecord: try recordIndex(logB, ids[10]))
        try logB.write(to: urlB)
        try logB.write(to: directoryB.appendingPathComponent("oplog.mirror"))
        let urlA = directoryA.appendingPathComponent("oplog")
        var logA = try OpLogBytes(urlA)
        let forgedIndex = try recordIndex(logA, ids[11])
        var forged = try logA.op(at: forgedIndex)
        guard case .insert(let gallery, let after, let before, var items) = forged.action else {
            Issue.record("op 11 is not an insert")
            return
        }
        items[0].fields[.title] = .text("forged")
        forged.action = .insert(gallery: gallery, after: after, before: before, items: items)
        logA.replace(record: forgedIndex, with: forged)
        try logA.write(to: urlA)
        try logA.write(to: directoryA.appendingPathComponent("oplog.mirror"))

        try space.start("a")
        try space.start("b", peers: ["a"])
        // The forged op is checked before it could meet b's held copy: a's signature of op 19
        // covers a's chain as a made it, not with the forged op 11 in it (protocol.md section 7.3).
        // A second version of an op ID can now only come from its author signing both (a node
        // restored from an old copy of its directory): `divergent_op`, as the model's tests check.
        #expect(space.waitUntil { space.standardError(of: "b").contains("FORGED OP") }, "\(space.standardError(of: "b"))")
        // a logs the close when b's error frame reaches it, after b logged the forgery: waited for.
        #expect(space.waitUntil { space.standardError(of: "a").contains("forged_op") }, "the peer hears why: \(space.standardError(of: "a"))")
        // Op 10, which a signed itself, still comes (its own signature holds), and releases b's own 11...19.
        #expect(try space.waitUntil { try space.column("title", on: "b", "a").count == 20 })
        let titles = try space.column("title", on: "b", "a")
        #expect(titles.count == 20 && !titles.contains("forged"), "the forged version is not applied: \(titles)")
        #expect(try space.health(of: "b").divergentOpCount == 0)
    }
}

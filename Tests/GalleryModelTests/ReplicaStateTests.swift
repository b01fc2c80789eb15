@testable import GalleryModel
import GallerySimulation
import Testing

/// A replica's encoded state (what a node's snapshot holds): decoding gives back the same replica,
/// the one that replaying its ops gives, and it goes on making the same op IDs.
@Suite("Replica state")
struct ReplicaStateTests {
    /// Checks that `decoded` is `original` in everything a node and its peers can observe.
    private func expectSame(_ decoded: Replica, _ original: Replica, _ comment: Comment? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(decoded.id == original.id, comment, sourceLocation: sourceLocation)
        #expect(decoded.version == original.version, comment, sourceLocation: sourceLocation)
        #expect(decoded.lamportClock == original.lamportClock, comment, sourceLocation: sourceLocation)
        #expect(decoded.opCount == original.opCount, comment, sourceLocation: sourceLocation)
        #expect(decoded.encodedLogSize == original.encodedLogSize, comment, sourceLocation: sourceLocation)
        #expect(decoded.galleries == original.galleries, comment, sourceLocation: sourceLocation)
        for gallery in original.galleries {
            #expect((try? decoded.items(in: gallery)) == (try? original.items(in: gallery)), comment,
                    sourceLocation: sourceLocation)
        }
        // Compared as Booleans: a failure prints the comment, not every op and byte.
        let sameOps = decoded.ops == original.ops
        #expect(sameOps, comment, sourceLocation: sourceLocation)
        let sameCatchUp = decoded.encodedOps(missingFrom: VersionVector(), maximumBytes: 4096)
            == original.encodedOps(missingFrom: VersionVector(), maximumBytes: 4096)
        #expect(sameCatchUp, comment, sourceLocation: sourceLocation)
        let sameState = decoded.encodedState() == original.encodedState()
        #expect(sameState, comment, sourceLocation: sourceLocation)
    }

    /// The same few local commands on a replica: what it makes next.
    private func nextOps(_ start: Replica) throws -> [Op] {
        var replica = start
        var made: [Op] = []
        let gallery = replica.galleries.first ?? "fresh"
        made.append(try replica.createGallery(gallery))
        let run = try replica.insert([.titled("n1"), .placeholder("n2")], into: gallery, at: 0)
        made.append(run)
        made.append(try replica.move(run.id, to: gallery, at: try replica.count(in: gallery) - 1))
        made.append(try replica.update(run.id, .url, to: .text("https://example.org/n1")))
        made.append(try replica.commit(run.id.advanced(by: 1)))
        made.append(try replica.delete(run.id))
        return made
    }

    @Test("Random histories of 3 to 5 replicas: every replica round-trips, equals its replay, and makes the same next op IDs",
          arguments: 1...40 as ClosedRange<UInt64>)
    func randomHistories(seed: UInt64) throws {
        var history = RandomSchedule(seed: seed)
        history.run()
        for original in history.replicas {
            let decoded = try Replica(decodingState: original.encodedState())
            expectSame(decoded, original, "seed \(seed), replica \(original.id)")

            var replayed = Replica(id: original.id)
            for op in original.ops { replayed.receive(op) }
            let sameAsReplay = replayed.encodedState() == original.encodedState()
            #expect(sameAsReplay, "seed \(seed): replay differs from the original")

            let next = try nextOps(decoded)
            #expect(next == (try nextOps(original)), "seed \(seed)")
            #expect(next.allSatisfy { !original.contains($0.id) }, "seed \(seed): an op ID was reused")
        }
    }

    @Test("A large replica (deep sequence trees, every op kind, two replicas merged) round-trips")
    func largeReplica() throws {
        var generator = SeededGenerator(seed: 99)
        var a = Replica(id: ReplicaID(0xA1))
        var b = Replica(id: ReplicaID(0xB2))
        try a.createGallery("one")
        try b.createGallery("two")
        for step in 0..<8_000 {
            var replica = step % 3 == 0 ? b : a
            let gallery = replica.galleries.randomElement(using: &generator)!
            let count = try replica.count(in: gallery)
            let choice = Int.random(in: 0..<10, using: &generator)
            switch count < 10 ? 0 : choice {
            case 0..<6:
                let drafts: [ItemDraft] = Bool.random(using: &generator)
                    ? [.titled("t\(step)")]
                    : [.placeholder("p\(step)"), ItemDraft(fields: [.byteSize: .integer(Int64(step)), .aspectRatio: .number(1.5)])]
                try replica.insert(drafts, into: gallery, at: Int.random(in: 0...count, using: &generator))
            case 6, 7:
                let item = try replica.item(at: Int.random(in: 0..<count, using: &generator), in: gallery)
                let target = replica.galleries.randomElement(using: &generator)!
                let size = try replica.count(in: target) - (target == gallery ? 1 : 0)
                try replica.move(item.id, to: target, at: Int.random(in: 0...size, using: &generator))
            case 8:
                let item = try replica.item(at: Int.random(in: 0..<count, using: &generator), in: gallery)
                if item.state == .placeholder { try replica.commit(item.id) } else { try replica.delete(item.id) }
            default:
                let item = try replica.item(at: Int.random(in: 0..<count, using: &generator), in: gallery)
                try replica.update(item.id, .title, to: Bool.random(using: &generator) ? .none : .text("u\(step)"))
            }
            if step % 3 == 0 { b = replica } else { a = replica }
            if step % 1000 == 999 {
                for op in b.ops(missingFrom: a.version) { a.receive(op) }
                for op in a.ops(missingFrom: b.version) { b.receive(op) }
            }
        }
        for op in b.ops(missingFrom: a.version) { a.receive(op) }
        let decoded = try Replica(decodingState: a.encodedState())
        expectSame(decoded, a)
        #expect(try a.count(in: "one") > 1000)
        #expect(try nextOps(decoded) == nextOps(a))
    }

    @Test("Ops held for a missing dependency are not in the state; sent again, they apply as on the original")
    func bufferedOpsAreNotKept() throws {
        var a = Replica(id: ReplicaID(0xA1))
        try a.createGallery("g")
        let first = try a.insert([.titled("x")], into: "g", at: 0)
        let second = try a.insert([.titled("y")], into: "g", at: 1)
        var b = Replica(id: ReplicaID(0xB2))
        b.receive(a.ops[0])
        #expect(b.receive(second) == .buffered(waitingFor: first.id))
        var decoded = try Replica(decodingState: b.encodedState())
        #expect(decoded.bufferedCount == 0)
        #expect(decoded.version == b.version)
        for op in a.ops { decoded.receive(op) }
        for op in a.ops { b.receive(op) }
        expectSame(decoded, b)
    }

    @Test("Every truncation of an encoded state is refused with an error")
    func truncations() throws {
        var history = RandomSchedule(seed: 5)
        history.run()
        let bytes = history.replicas[0].encodedState()
        var generator = SeededGenerator(seed: 1)
        var cuts = Array(0..<min(bytes.count, 300))
        for _ in 0..<300 { cuts.append(Int.random(in: 0..<bytes.count, using: &generator)) }
        for cut in cuts {
            #expect(throws: DecodingError.self, "cut at \(cut) of \(bytes.count)") {
                try Replica(decodingState: Array(bytes.prefix(cut)))
            }
        }
        #expect(throws: DecodingError.self) { try Replica(decodingState: bytes + [0]) }
        var otherVersion = bytes
        otherVersion[0] &+= 1
        #expect(throws: DecodingError.self) { try Replica(decodingState: otherVersion) }
    }
}

@testable import GalleryModel
import Testing

/// The streaming catch-up over the log (`Replica+CatchUp`): read in bounded steps from a cursor, it
/// yields exactly the ops a replica lacks, in log order, whatever the step sizes.
@Suite("Catch-up cursor")
struct CatchUpCursorTests {
    /// Three replicas' ops interleaved: `a` has made 30, `b` 20 of which `a` saw, `c` 10.
    static func interleaved() throws -> Replica {
        var a = Replica(id: ReplicaID(deriving: "a"))
        var b = Replica(id: ReplicaID(deriving: "b"))
        var c = Replica(id: ReplicaID(deriving: "c"))
        try a.createGallery("g")
        for op in a.ops { _ = b.receive(op); _ = c.receive(op) }
        for round in 0..<20 {
            let made = try b.insert([.titled("b\(round)")], into: "g", at: 0)
            _ = a.receive(made)
            _ = c.receive(made)
            if round < 10 {
                let other = try c.insert([.titled("c\(round)")], into: "g", at: 0)
                _ = a.receive(other)
            }
            _ = try a.insert([.titled("a\(round)")], into: "g", at: 0)
        }
        return a
    }

    /// The ops a cursor yields from `version`, with steps of at most `bytes` and `scanned`.
    static func streamed(_ replica: Replica, from version: VersionVector, bytes: Int, scanned: Int) throws -> [Op] {
        var ops: [Op] = []
        var next = replica.firstLogPosition(missingFrom: version)
        while next < replica.opCount {
            let (batch, after) = replica.encodedBatch(
                missingFrom: version, from: next, below: replica.opCount, maximumBytes: bytes, maximumScanned: scanned)
            #expect(after > next, "the cursor moves on")
            if let batch { ops += try OpCodec.decode(batch) }
            next = after
        }
        return ops
    }

    @Test("Any step sizes yield exactly the ops missing from a version, in log order")
    func cursorYieldsTheMissingOps() throws {
        let replica = try Self.interleaved()
        let versions = [
            VersionVector(),
            VersionVector([ReplicaID(deriving: "a"): 5, ReplicaID(deriving: "b"): 20]),
            VersionVector([ReplicaID(deriving: "c"): 99]),
            replica.version,
        ]
        for version in versions {
            let expected = replica.ops(missingFrom: version)
            for (bytes, scanned) in [(1, 1), (64, 3), (1 << 20, 7), (1 << 20, 1 << 16)] {
                #expect(try Self.streamed(replica, from: version, bytes: bytes, scanned: scanned) == expected,
                        "from \(version) in steps of \(bytes) bytes, \(scanned) positions")
            }
        }
    }

    @Test("The cursor starts at the first op the version lacks")
    func cursorStartsAtTheFirstMissingOp() throws {
        let replica = try Self.interleaved()
        #expect(replica.firstLogPosition(missingFrom: VersionVector()) == 0)
        #expect(replica.firstLogPosition(missingFrom: replica.version) == replica.opCount)
        // The ops before the first position are all included in the version, the one at it is not.
        let version = VersionVector([ReplicaID(deriving: "a"): 10, ReplicaID(deriving: "b"): 20, ReplicaID(deriving: "c"): 10])
        let first = replica.firstLogPosition(missingFrom: version)
        let ops = replica.ops
        #expect(ops[..<first].allSatisfy { version.contains($0.id) })
        #expect(first < ops.count && !version.contains(ops[first].id))
    }
}

import GalleryCrypto
import GalleryModel

/// The ops a checked signature covers and that are not applied yet, kept per replica as one run
/// in chain order (what `admit` compares each op with before the replica applies it).
///
/// A replica applies each replica's ops in chain order (an op is ready only when its predecessor
/// is the last op applied), so the ops of a run are admitted front to back: `admit` takes the next
/// one, with one lookup and no copy, where a dictionary of ops by counter cost an insert and a
/// removal per op.
extension OpSignatures {
    /// Ops of one replica that a checked signature covers, each the next of the one before, with
    /// the chain hash after each; those before `next` were admitted.
    struct CoveredRun: Sendable {
        /// The replica's key (the one the signature was checked with).
        var key: Ed25519.PublicKey
        var ops: [Op]
        /// The chain hash after each op of `ops`.
        var hashes: [[UInt8]]
        /// The first op not admitted yet.
        var next = 0

        /// How many ops are not admitted yet.
        var waiting: Int { ops.count - next }

        /// The index of the op not admitted yet whose last counter is `counter`, if any.
        ///
        /// - Complexity: O(log n): the counters of a chain increase.
        func index(endingAt counter: UInt64) -> Int? {
            var low = next, high = ops.count
            while low < high {
                let middle = (low + high) / 2
                if ops[middle].lastCounter < counter { low = middle + 1 } else { high = middle }
            }
            return low < ops.count && ops[low].lastCounter == counter ? low : nil
        }
    }

    /// What a replica's covered run says of an op about to be applied (`takeCovered`).
    enum Coverage {
        /// No covered op has its ID.
        case none
        /// The covered op with its ID is another op.
        case differs
        /// It is the covered op; the chain hash after it.
        case covered(hash: [UInt8])
    }

    /// Takes the covered op with `op`'s ID from its replica's run and compares it with `op` (its
    /// seal aside), in place. Ops of the run before it are passed over for good: the replica
    /// applied their IDs already, or never will (it applies a replica's ops in chain order).
    ///
    /// - Complexity: O(1) amortized, one lookup.
    mutating func takeCovered(_ op: Op) -> Coverage {
        guard let index = expected.index(forKey: op.id.replica) else { return .none }
        let (coverage, passed, left) = Self.take(op, from: &expected.values[index])
        expectedCount -= passed
        if left == 0 { expected.remove(at: index) }
        return coverage
    }

    /// `takeCovered` on one run: the coverage, how many ops it passed or took, how many are left.
    private static func take(_ op: Op, from run: inout CoveredRun) -> (Coverage, passed: Int, left: Int) {
        let counter = op.id.counter
        let start = run.next
        var next = start
        while next < run.ops.count, run.ops[next].id.counter < counter { next += 1 }
        var coverage = Coverage.none
        if next < run.ops.count, run.ops[next].id.counter == counter {
            let same = run.ops[next].id == op.id && run.ops[next].previous == op.previous && run.ops[next].action == op.action
            coverage = same ? .covered(hash: run.hashes[next]) : .differs
            next += 1
        }
        run.next = next
        return (coverage, next - start, run.ops.count - next)
    }

    /// Where a run of `replica` whose first op follows `previous` starts, when that op is one of
    /// the covered ops not applied yet (a frame whose ops of one replica are not in one run): the
    /// key and the chain hash there, and the op's index in the covered run.
    func coveredChain(of replica: ReplicaID, through previous: UInt64) -> (key: Ed25519.PublicKey, hash: [UInt8], index: Int)? {
        guard let run = expected[replica], let index = run.index(endingAt: previous) else { return nil }
        return (run.key, run.hashes[index], index)
    }

    /// Keeps the ops of `run` (of `replica`, just checked with `key`; `hashes` after each) as
    /// covered. `following`: the index of the covered op the run follows (`coveredChain`); the
    /// covered ops after it give way. Otherwise the run follows the chain applied here and replaces
    /// the covered ops, unless they already hold it (the same chain hash at its end).
    mutating func expect(_ run: [Op], hashes: [[UInt8]], key: Ed25519.PublicKey, replica: ReplicaID, following: Int?) {
        guard let last = hashes.last else { return }
        var covered = CoveredRun(key: key, ops: run, hashes: hashes)
        if var pending = expected.removeValue(forKey: replica) {
            expectedCount -= pending.waiting
            if let following, following >= pending.next, following < pending.ops.count {
                pending.ops.removeSubrange((following + 1)...)
                pending.hashes.removeSubrange((following + 1)...)
                pending.ops.append(contentsOf: run)
                pending.hashes.append(contentsOf: hashes)
                covered = pending
            } else if let end = run.last.flatMap({ pending.index(endingAt: $0.lastCounter) }), pending.hashes[end] == last {
                // The same ops (the same chain hash after them): nothing to add.
                covered = pending
            }
        }
        if expectedCount + covered.waiting > Self.maximumExpected {
            expected = [:]
            expectedCount = 0
        }
        expected[replica] = covered
        expectedCount += covered.waiting
    }
}

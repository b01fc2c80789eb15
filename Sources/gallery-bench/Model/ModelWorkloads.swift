import GalleryModel
import GallerySimulation

/// The model benchmarks W1-W6: local inserts, moves and deletes, remote merges, and memory.
///
/// Each workload draws its random choices from a `SeededGenerator` with a fixed seed, so every run
/// does the same work, and draws them before the timed part, so that only model calls are timed.
/// Each one checks its outcome (counts, convergence), which also keeps the compiler from dropping
/// any of the work.
enum ModelWorkloads {
    /// The workloads in the order `gallery-bench model` runs them.
    static let names = ["W1", "W2", "W3", "W4", "W5", "W6"]

    /// Runs one workload in this process.
    static func run(_ name: String) throws -> ResultLine {
        switch name {
        case "W1": try insertAtRandomIndices()
        case "W2": try randomMoves()
        case "W3": try randomDeletes()
        case "W4": try remoteMerge()
        case "W5": try concurrentMerge()
        case "W6": try millionItemMemory()
        default: throw BenchFailure.usage("unknown workload \"\(name)\"")
        }
    }

    /// The one gallery the workloads use.
    private static let gallery = "g"

    // MARK: Workloads

    /// W1: 100,000 single-item inserts at random indices of one gallery.
    private static func insertAtRandomIndices() throws -> ResultLine {
        let count = 100_000
        var random = SeededGenerator(seed: 1)
        var replica = Replica(id: ReplicaID(1), bufferLimit: 100_000)
        try replica.createGallery(gallery)
        let indices = randomInsertIndices(count, startingAt: 0, using: &random)
        let draft = [ItemDraft()]
        let timed = try Stopwatch.time {
            for index in indices {
                try replica.insert(draft, into: gallery, at: index)
            }
        }
        let peak = MemoryUsage.peakResidentBytes()
        try expect(try replica.count(in: gallery) == count, "W1: the gallery should hold \(count) items")
        return ResultLine(
            workload: "W1", ops: count, seconds: timed.seconds,
            bytes: EncodedLog.byteCount(of: replica), peakRSSBytes: peak)
    }

    /// W2: 100,000 moves of random items to random indices of a 10,000-item gallery.
    private static func randomMoves() throws -> ResultLine {
        let size = 10_000
        let moves = 100_000
        var random = SeededGenerator(seed: 2)
        var replica = Replica(id: ReplicaID(1), bufferLimit: 100_000)
        try buildGallery(&replica, count: size, using: &random)
        let ids = try replica.items(in: gallery).map(\.id)
        // An index counts the items once the moved one has left its place: 0..<size.
        let plan = (0..<moves).map { _ in
            (ids[Int.random(in: 0..<size, using: &random)], Int.random(in: 0..<size, using: &random))
        }
        let timed = try Stopwatch.time {
            for (item, index) in plan {
                try replica.move(item, to: gallery, at: index)
            }
        }
        let peak = MemoryUsage.peakResidentBytes()
        try expect(try replica.count(in: gallery) == size, "W2: the gallery should still hold \(size) items")
        let (item, index) = plan[moves - 1]
        try expect(replica.location(of: item)?.index == index, "W2: the last item moved should be at \(index)")
        return ResultLine(
            workload: "W2", ops: moves, seconds: timed.seconds,
            bytes: EncodedLog.byteCount(of: replica), peakRSSBytes: peak)
    }

    /// W3: deletes 50,000 random items of a 100,000-item gallery.
    private static func randomDeletes() throws -> ResultLine {
        let size = 100_000
        let deletes = 50_000
        var random = SeededGenerator(seed: 3)
        var replica = Replica(id: ReplicaID(1), bufferLimit: 100_000)
        try buildGallery(&replica, count: size, using: &random)
        var ids = try replica.items(in: gallery).map(\.id)
        ids.shuffle(using: &random)
        let victims = ids[..<deletes]
        let timed = try Stopwatch.time {
            for item in victims {
                try replica.delete(item)
            }
        }
        let peak = MemoryUsage.peakResidentBytes()
        try expect(try replica.count(in: gallery) == size - deletes, "W3: \(size - deletes) items should remain")
        try expect(replica.location(of: victims[victims.startIndex]) == nil, "W3: a deleted item should be gone")
        return ResultLine(
            workload: "W3", ops: deletes, seconds: timed.seconds,
            bytes: EncodedLog.byteCount(of: replica), peakRSSBytes: peak)
    }

    /// W4: an empty replica receives every op of a replica that made 50,000 inserts and 50,000
    /// moves (alternating, at random indices), plus its `createGallery`.
    private static func remoteMerge() throws -> ResultLine {
        let inserts = 50_000
        var random = SeededGenerator(seed: 4)
        var source = Replica(id: ReplicaID(deriving: "source"), bufferLimit: 100_000)
        try source.createGallery(gallery)
        var ids: [OpID] = []
        ids.reserveCapacity(inserts)
        let draft = [ItemDraft()]
        for made in 0..<inserts {
            let op = try source.insert(draft, into: gallery, at: Int.random(in: 0...made, using: &random))
            ids.append(op.id)
            let item = ids[Int.random(in: 0..<ids.count, using: &random)]
            try source.move(item, to: gallery, at: Int.random(in: 0..<ids.count, using: &random))
        }
        let ops = source.ops
        var target = Replica(id: ReplicaID(deriving: "target"), bufferLimit: 100_000)
        let timed = Stopwatch.time {
            var applied = 0
            for op in ops {
                if case .applied = target.receive(op) { applied += 1 }
            }
            return applied
        }
        let peak = MemoryUsage.peakResidentBytes()
        try expect(timed.result == ops.count, "W4: \(ops.count - timed.result) ops were not applied")
        try expect(try target.items(in: gallery) == source.items(in: gallery), "W4: the replicas differ after the merge")
        return ResultLine(
            workload: "W4", ops: ops.count, seconds: timed.seconds,
            bytes: EncodedLog.byteCount(of: target), peakRSSBytes: peak)
    }

    /// W5: two replicas share a 10,000-item gallery, each makes 20,000 random ops concurrently
    /// (inserts, moves, deletes, title updates), then each receives the ops it lacks from the other.
    /// The timed part is the two merges, including finding the missing ops.
    private static func concurrentMerge() throws -> ResultLine {
        let base = 10_000
        let opsEach = 20_000
        var random = SeededGenerator(seed: 5)
        var alice = Replica(id: ReplicaID(deriving: "alice"), bufferLimit: 100_000)
        try buildGallery(&alice, count: base, using: &random)
        var bob = Replica(id: ReplicaID(deriving: "bob"), bufferLimit: 100_000)
        for op in alice.ops {
            guard case .applied = bob.receive(op) else { throw BenchFailure.failed("W5: bob refused a base op") }
        }
        let baseIDs = try alice.items(in: gallery).map(\.id)
        try makeRandomOps(opsEach, on: &alice, items: baseIDs, using: &random)
        try makeRandomOps(opsEach, on: &bob, items: baseIDs, using: &random)

        let timed = Stopwatch.time {
            let forBob = alice.ops(missingFrom: bob.version)
            let forAlice = bob.ops(missingFrom: alice.version)
            var applied = 0
            for op in forBob {
                if case .applied = bob.receive(op) { applied += 1 }
            }
            for op in forAlice {
                if case .applied = alice.receive(op) { applied += 1 }
            }
            return (applied: applied, sent: forBob.count + forAlice.count)
        }
        let peak = MemoryUsage.peakResidentBytes()
        try expect(timed.result.sent == 2 * opsEach, "W5: \(timed.result.sent) ops were missing, not \(2 * opsEach)")
        try expect(timed.result.applied == 2 * opsEach, "W5: \(2 * opsEach - timed.result.applied) ops were not applied")
        try expect(try alice.items(in: gallery) == bob.items(in: gallery), "W5: the replicas differ after the merge")
        return ResultLine(
            workload: "W5", ops: timed.result.sent, seconds: timed.seconds,
            bytes: EncodedLog.byteCount(of: alice), peakRSSBytes: peak)
    }

    /// W6: memory of a 1,000,000-item gallery built by single-item inserts with short titles at
    /// random indices. `bytesPerItem` is (peak RSS after - RSS before building) / 1,000,000.
    private static func millionItemMemory() throws -> ResultLine {
        let count = 1_000_000
        var random = SeededGenerator(seed: 6)
        let indices = randomInsertIndices(count, startingAt: 0, using: &random)
        var replica = Replica(id: ReplicaID(1), bufferLimit: 100_000)
        try replica.createGallery(gallery)
        let before = MemoryUsage.currentResidentBytes()
        let timed = try Stopwatch.time {
            for (number, index) in indices.enumerated() {
                try replica.insert([.titled(title(number))], into: gallery, at: index)
            }
        }
        let peak = MemoryUsage.peakResidentBytes()
        try expect(try replica.count(in: gallery) == count, "W6: the gallery should hold \(count) items")
        try expect(try replica.item(at: count / 2, in: gallery).title?.hasPrefix("img") == true, "W6: titles lost")
        let perItem = before.flatMap { before in peak.map { Double($0 - before) / Double(count) } }
        return ResultLine(
            workload: "W6", ops: count, seconds: timed.seconds,
            bytes: EncodedLog.byteCount(of: replica), peakRSSBytes: peak,
            extra: [("bytesPerItem", perItem)])
    }

    // MARK: Helpers

    /// `img` and six digits, e.g. `img004217`: nine bytes, stored inline by `String`.
    private static func title(_ number: Int) -> String {
        "img" + String(String(1_000_000 + number % 1_000_000).dropFirst())
    }

    /// Indices for `count` successive single-item inserts into a gallery of `start` items, each
    /// uniformly random among the positions open at that moment.
    private static func randomInsertIndices(
        _ count: Int, startingAt start: Int, using random: inout SeededGenerator
    ) -> [Int] {
        (0..<count).map { made in Int.random(in: 0...(start + made), using: &random) }
    }

    /// Creates the gallery and fills it with `count` untitled items, one insert each, at random indices.
    private static func buildGallery(_ replica: inout Replica, count: Int, using random: inout SeededGenerator) throws {
        try replica.createGallery(gallery)
        let draft = [ItemDraft()]
        for index in randomInsertIndices(count, startingAt: 0, using: &random) {
            try replica.insert(draft, into: gallery, at: index)
        }
    }

    /// Makes `count` random local ops on a replica: 40% inserts, 30% moves, 15% deletes, 15% title
    /// updates, on the live items it knows (`items` plus those it inserts).
    private static func makeRandomOps(
        _ count: Int, on replica: inout Replica, items: [OpID], using random: inout SeededGenerator
    ) throws {
        var live = items
        for number in 0..<count {
            let size = try replica.count(in: gallery)
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 40 || live.isEmpty {
                let op = try replica.insert([ItemDraft()], into: gallery, at: Int.random(in: 0...size, using: &random))
                live.append(op.id)
                continue
            }
            let pick = Int.random(in: 0..<live.count, using: &random)
            if roll < 70 {
                try replica.move(live[pick], to: gallery, at: Int.random(in: 0..<size, using: &random))
            } else if roll < 85 {
                try replica.delete(live[pick])
                live.swapAt(pick, live.count - 1)
                live.removeLast()
            } else {
                try replica.update(live[pick], .title, to: .text("t\(number)"))
            }
        }
    }

    private static func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        guard condition else { throw BenchFailure.failed(message()) }
    }
}

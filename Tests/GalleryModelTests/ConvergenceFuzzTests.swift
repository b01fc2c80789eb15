import Foundation
@testable import GalleryModel
import GallerySimulation
import Testing

/// Seeded randomized tests of convergence: many random histories of concurrent ops and partial,
/// shuffled, duplicated deliveries must leave every replica showing the same thing, and what the
/// ops imply (rules 1-9 and 14 of the design); concurrent runs at one place must never interleave
/// (rule 2).
///
/// Environment:
/// - `GALLERY_FUZZ_SEED=N` runs seed N alone and prints its history (replay of a failure).
/// - `GALLERY_FUZZ_COUNT=N` runs seeds 1...N (default 2,000 histories, 400 run cases).
@Suite("ConvergenceFuzz")
struct ConvergenceFuzzTests {
    /// The seeds to run: `GALLERY_FUZZ_SEED` alone, else 1...`GALLERY_FUZZ_COUNT` (or `defaultCount`).
    static func seeds(defaultCount: UInt64) -> [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["GALLERY_FUZZ_SEED"], let seed = UInt64(text) { return [seed] }
        let count = environment["GALLERY_FUZZ_COUNT"].flatMap { UInt64($0) } ?? defaultCount
        return count == 0 ? [] : Array(1...count)
    }

    /// Whether a single seed was asked for, in which case its whole history is reported.
    static var replaying: Bool {
        ProcessInfo.processInfo.environment["GALLERY_FUZZ_SEED"] != nil
    }

    /// The convergence test runs its seeds in this many batches, which Swift Testing runs in parallel.
    static let batchCount = 8

    /// The seeds of one batch of the convergence test.
    static func historySeeds(batch: Int) -> [UInt64] {
        let all = seeds(defaultCount: 2_000)
        return stride(from: batch, to: all.count, by: batchCount).map { all[$0] }
    }

    // MARK: Convergence

    @Test("Random histories converge to what their ops imply", arguments: 0..<batchCount)
    func randomHistoriesConverge(batch: Int) async {
        let (failed, reports) = await DedicatedThread.run { Self.runHistories(batch: batch) }
        for report in reports { Issue.record(Comment(rawValue: report)) }
        #expect(failed.isEmpty, "failing seeds: \(failed)")
    }

    /// Runs one batch of histories; returns the failing seeds and a report for each of the first few.
    private static func runHistories(batch: Int) -> ([UInt64], [String]) {
        var failed: [UInt64] = []
        var reports: [String] = []
        for seed in Self.historySeeds(batch: batch) {
            var history = RandomSchedule(seed: seed)
            history.run()
            // Replaying through Simulator (and its JSON) costs as much again: one seed in four.
            if seed % 4 == 0 || Self.replaying { history.crossCheckSimulator() }
            if Self.replaying {
                print("""
                    GALLERY_FUZZ_SEED=\(seed): \(history.names.count) replicas, \(history.trace.count) steps, \
                    \(history.replicas[0].opCount) ops, \(history.expectations.count) items \
                    (\(history.expectations.values.filter(\.deleted).count) deleted), \
                    subset deliveries: \(history.usesSubsetDelivery)
                    """)
                print(history.trace.enumerated().map { "\($0 + 1): \($1)" }.joined(separator: "\n"))
                if !history.usesSubsetDelivery {
                    print("As a `gallery simulate` file:\n\(history.scheduleJSON)")
                }
            }
            guard !history.problems.isEmpty else { continue }
            failed.append(seed)
            guard failed.count <= 5 else { continue }
            let shown = history.problems.prefix(12).joined(separator: "\n  ")
            let more = history.problems.count > 12 ? "\n  ... \(history.problems.count - 12) more" : ""
            reports.append("""
                seed \(seed) failed (replay: GALLERY_FUZZ_SEED=\(seed) swift test --filter ConvergenceFuzz); \
                \(history.names.count) replicas, \(history.trace.count) steps, \
                subset deliveries: \(history.usesSubsetDelivery)
                  \(shown)\(more)
                """)
        }
        return (failed, reports)
    }

    // MARK: Non-interleaving

    /// How a replica makes its run of items at one index.
    enum RunShape: CaseIterable, CustomStringConvertible {
        /// Separate one-item inserts at index, index + 1, ...: typing forward.
        case forward
        /// Separate one-item inserts all at index, each before the previous one: typing backward.
        case backward
        /// One insert op of several items: a multi-item drop.
        case drop

        var description: String {
            switch self {
            case .forward: "forward"
            case .backward: "backward"
            case .drop: "drop"
            }
        }
    }

    @Test("Concurrent runs at one index never interleave, in any delivery order", arguments: [0, 1])
    func concurrentRunsNeverInterleave(half: Int) async throws {
        let seeds = Self.seeds(defaultCount: 400).filter { Self.replaying ? half == 0 : Int($0 % 2) == half }
        let (failed, reports) = await DedicatedThread.run { () -> ([UInt64], [String]) in
            var failed: [UInt64] = []
            var reports: [String] = []
            for seed in seeds {
                let problems: [String]
                do {
                    problems = try Self.runsAtOneIndex(seed: seed)
                } catch {
                    problems = ["threw \(error)"]
                }
                guard !problems.isEmpty else { continue }
                failed.append(seed)
                guard failed.count <= 5 else { continue }
                reports.append("""
                    seed \(seed) failed (replay: GALLERY_FUZZ_SEED=\(seed) swift test --filter Interleav)
                      \(problems.prefix(12).joined(separator: "\n  "))
                    """)
            }
            return (failed, reports)
        }
        for report in reports { Issue.record(Comment(rawValue: report)) }
        #expect(failed.isEmpty, "failing seeds: \(failed)")
    }

    /// 2 to 4 replicas share a base gallery (some of its items deleted), each makes one run at the
    /// same index, and fresh observers receive the runs in every order of replicas and in random
    /// interleavings of all ops. Returns what went wrong.
    static func runsAtOneIndex(seed: UInt64) throws -> [String] {
        var rng = SeededGenerator(seed: seed)
        var problems: [String] = []

        // The shared base: a few items in "g", some deleted, so that tombstones sit near the index.
        var base = Replica(id: ReplicaID(deriving: "base-\(seed)"))
        try base.createGallery("g")
        let baseCount = Int.random(in: 0...5, using: &rng)
        for index in 0..<baseCount {
            try base.insert([.titled("b\(index)")], into: "g", at: index)
        }
        for item in try base.items(in: "g") where Double.random(in: 0..<1, using: &rng) < 0.3 {
            try base.delete(item.id)
        }
        let baseItems = try base.items(in: "g").map(\.id)
        let baseOps = base.ops
        let index = Int.random(in: 0...baseItems.count, using: &rng)

        // Each replica makes its run.
        let replicaCount = Int.random(in: 2...4, using: &rng)
        var runs: [[OpID]] = []
        var runOps: [[Op]] = []
        var shapes: [RunShape] = []
        var writers: [Replica] = []
        for number in 0..<replicaCount {
            var writer = Replica(id: ReplicaID(deriving: "w\(number)-\(Int.random(in: 0..<1000, using: &rng))"))
            for op in baseOps { _ = writer.receive(op) }
            let shape = RunShape.allCases.randomElement(using: &rng)!
            let length = Int.random(in: 2...4, using: &rng)
            let titles = (0..<length).map { "w\(number).\($0)" }
            var ops: [Op] = []
            var run: [OpID] = []
            switch shape {
            case .forward:
                for (offset, title) in titles.enumerated() {
                    ops.append(try writer.insert([.titled(title)], into: "g", at: index + offset))
                    run.append(ops.last!.id)
                }
            case .backward:
                for title in titles {
                    ops.append(try writer.insert([.titled(title)], into: "g", at: index))
                    run.insert(ops.last!.id, at: 0)
                }
            case .drop:
                ops.append(try writer.insert(titles.map { .titled($0) }, into: "g", at: index))
                run = (0..<length).map { ops[0].id.advanced(by: $0) }
            }
            let local = try writer.items(in: "g").map(\.id)
            if Array(local[index..<(index + length)]) != run {
                problems.append("w\(number) (\(shape)) shows its own run out of place: \(local)")
            }
            runs.append(run)
            runOps.append(ops)
            shapes.append(shape)
            writers.append(writer)
        }
        let runSizes = zip(shapes, runs).map { "\($0)×\($1.count)" }
        let setting = "base \(baseItems.count) items, index \(index), runs \(runSizes)"

        /// Checks one observer's gallery after a delivery.
        func check(_ observer: Replica, _ order: String) throws -> [OpID] {
            let shown = try observer.items(in: "g").map(\.id)
            if observer.bufferedCount != 0 {
                problems.append("\(order): \(observer.bufferedCount) ops still buffered")
            }
            if shown.filter({ baseItems.contains($0) }) != baseItems {
                problems.append("\(order): base items reordered: \(shown)")
            }
            let gapStart = index == 0 ? 0 : (shown.firstIndex(of: baseItems[index - 1]) ?? -1) + 1
            let gapEnd = index == baseItems.count ? shown.count : shown.firstIndex(of: baseItems[index]) ?? shown.count
            let allRuns = Array(runs.joined())
            if gapStart > gapEnd || Set(shown[gapStart..<gapEnd]) != Set(allRuns)
                || shown.count != baseItems.count + allRuns.count {
                problems.append("\(order): the runs are not all between the base items around index \(index): \(shown)")
            }
            for (number, run) in runs.enumerated() {
                let positions = run.map { shown.firstIndex(of: $0) ?? -1 }
                if positions.contains(-1) || positions != Array(positions[0]..<(positions[0] + run.count)) {
                    problems.append(
                        "\(order): run of w\(number) (\(shapes[number])) split or reordered: at \(positions)")
                }
            }
            return shown
        }

        // Deliveries: every order of the writers, run by run, then random interleavings of all ops.
        var results: [[OpID]] = []
        for order in permutations(Array(0..<replicaCount)) {
            var observer = Replica(id: ReplicaID(deriving: "observer"))
            for op in baseOps { _ = observer.receive(op) }
            for writer in order {
                for op in runOps[writer] {
                    if case .rejected(let error) = observer.receive(op) {
                        problems.append("observer rejected \(op.id): \(error)")
                    }
                }
            }
            results.append(try check(observer, "order \(order)"))
        }
        for attempt in 0..<4 {
            var observer = Replica(id: ReplicaID(deriving: "observer"))
            var deliveries = baseOps + runOps.joined()
            if attempt % 2 == 1 { deliveries += deliveries }
            deliveries.shuffle(using: &rng)
            for op in deliveries {
                if case .rejected(let error) = observer.receive(op) {
                    problems.append("observer rejected \(op.id): \(error)")
                }
            }
            results.append(try check(observer, "shuffle \(attempt)"))
        }
        // The writers themselves, once each has every run.
        for number in writers.indices {
            for other in writers.indices where other != number {
                for op in runOps[other] { _ = writers[number].receive(op) }
            }
            results.append(try check(writers[number], "writer w\(number)"))
        }
        if Set(results).count != 1 {
            problems.append("replicas disagree: \(Set(results).map(\.description).sorted())")
        }
        return problems.map { "\($0) [\(setting)]" }
    }

    /// All orderings of a few elements.
    static func permutations(_ elements: [Int]) -> [[Int]] {
        guard elements.count > 1 else { return [elements] }
        return elements.indices.flatMap { index in
            var rest = elements
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }
}

import Foundation
@testable import GalleryModel
@testable import GallerySimulation
import Testing

/// Seeded randomized schedules of concurrent trash, restore, Empty Trash (delete), edits, moves,
/// inserts, and gallery renames and deletes on three replicas with partial shuffled deliveries,
/// replayed through `Simulator` (the engine of `gallery simulate`): every replica must end up
/// showing the same galleries and the same Trash, and what the ops imply (docs/design.md, "Trash").
///
/// `GALLERY_FUZZ_SEED=N` runs seed N alone and prints its schedule as a `gallery simulate` file.
@Suite("TrashConvergence")
struct TrashConvergenceTests {
    static let batchCount = 4

    @Test("Random schedules with the Trash and gallery renames converge to what their ops imply", arguments: 0..<batchCount)
    func randomSchedulesConverge(batch: Int) throws {
        let seeds = ConvergenceFuzzTests.seeds(defaultCount: 400)
        for seed in stride(from: batch, to: seeds.count, by: Self.batchCount).map({ seeds[$0] }) {
            var history = TrashHistory(seed: seed)
            try history.run(steps: 120)
            let problems = history.problems()
            if ConvergenceFuzzTests.replaying || !problems.isEmpty {
                print("GALLERY_FUZZ_SEED=\(seed):\n\(history.scheduleJSON)")
            }
            #expect(problems.isEmpty, "seed \(seed): \(problems.prefix(5))")
        }
    }
}

/// One random history on a `Simulator`.
struct TrashHistory {
    let names = ["A", "B", "C"]
    var simulator: Simulator
    var rng: SeededGenerator
    var steps: [Schedule.Step] = []
    var nextLabel = 0

    init(seed: UInt64) {
        simulator = try! Simulator(replicas: names)
        rng = SeededGenerator(seed: seed)
    }

    /// Performs `count` random steps (those the model refuses are left out), then delivers everything.
    mutating func run(steps count: Int) throws {
        try perform(.createGallery(at: "A", name: "g0"))
        try perform(.insert(at: "A", labels: (0..<6).map { "i\($0)" }, gallery: "g0", index: 0, placeholders: false))
        nextLabel = 6
        try perform(.syncAll)
        while steps.count < count {
            let at = names.randomElement(using: &rng)!
            if let step = randomStep(at: at) { try? perform(step) }
        }
        try perform(.syncAll)
    }

    private mutating func perform(_ step: Schedule.Step) throws {
        try simulator.perform(step, number: steps.count + 1)
        steps.append(step)
    }

    private func replica(_ name: String) -> Replica { simulator.replicas[name]! }

    private func label(_ id: OpID) -> String { simulator.labels.first { $0.value == id }!.key }

    /// A step that makes sense on replica `at` now (it may still be refused: a taken name).
    private mutating func randomStep(at: String) -> Schedule.Step? {
        let replica = replica(at)
        let galleries = replica.galleries
        let shown = galleries.flatMap { (try? replica.items(in: $0)) ?? [] }
        let trash = replica.trash
        let roll = Int.random(in: 0..<100, using: &rng)
        switch roll {
        case 0..<12:
            guard let gallery = galleries.randomElement(using: &rng) else { return nil }
            let labels = (0..<Int.random(in: 1...3, using: &rng)).map { offset in "i\(nextLabel + offset)" }
            nextLabel += labels.count
            let count = (try? replica.count(in: gallery)) ?? 0
            return .insert(at: at, labels: labels, gallery: gallery, index: Int.random(in: 0...count, using: &rng), placeholders: false)
        case 12..<27:
            guard let item = shown.randomElement(using: &rng), let gallery = galleries.randomElement(using: &rng) else { return nil }
            let count = ((try? replica.count(in: gallery)) ?? 1) - (item.gallery == gallery ? 1 : 0)
            return .move(at: at, label: label(item.id), gallery: gallery, index: Int.random(in: 0...max(0, count), using: &rng))
        case 27..<42:
            return shown.randomElement(using: &rng).map { .trash(at: at, label: label($0.id)) }
        case 42..<52:
            return trash.randomElement(using: &rng).map { .restore(at: at, label: label($0.id)) }
        case 52..<56:
            return trash.randomElement(using: &rng).map { .delete(at: at, label: label($0.id)) }
        case 56..<66:
            guard let item = (shown + trash).randomElement(using: &rng) else { return nil }
            return .update(at: at, label: label(item.id), field: .title, value: .string("t\(Int.random(in: 0..<100, using: &rng))"))
        case 66..<71:
            guard let gallery = galleries.randomElement(using: &rng) else { return nil }
            return .renameGallery(at: at, name: gallery, to: "g\(Int.random(in: 0..<6, using: &rng))")
        case 71..<75:
            guard galleries.count > 1, let gallery = galleries.randomElement(using: &rng) else { return nil }
            return .deleteGallery(at: at, name: gallery)
        case 75..<78:
            return .createGallery(at: at, name: "g\(Int.random(in: 0..<6, using: &rng))")
        default:
            let from = names.randomElement(using: &rng)!
            let to = names.filter { $0 != from }.randomElement(using: &rng)!
            return .sync(from: from, to: to, shuffle: rng.next(), duplicate: Bool.random(using: &rng))
        }
    }

    /// The schedule as a `gallery simulate` file.
    var scheduleJSON: String {
        let replicas = names.map { "\"\($0)\"" }.joined(separator: ", ")
        return "{\"replicas\": [\(replicas)], \"steps\": [\n" + steps.map(RandomSchedule.json).joined(separator: ",\n") + "\n]}"
    }

    /// What is wrong with the outcome: disagreement, or a state other than the ops imply.
    func problems() -> [String] {
        var problems: [String] = []
        let outcome = simulator.outcome()
        if !outcome.converged { problems.append("replicas disagree") }
        let replica = replica("A")
        let ops = replica.ops
        // The registers as the ops imply them: greatest op ID wins.
        var trashed: [OpID: (OpID, Bool)] = [:]
        var placement: [OpID: (OpID, String)] = [:]
        var deleted: Set<OpID> = []
        var galleryLive: [String: (OpID, Bool)] = [:]
        var galleryTitle: [String: (OpID, String)] = [:]
        for op in ops {
            switch op.action {
            case .insert(let gallery, _, _, let items):
                for offset in items.indices { placement[op.id.advanced(by: offset)] = (op.id.advanced(by: offset), gallery) }
            case .move(let item, let gallery, _, _):
                if placement[item].map({ $0.0 < op.id }) ?? true { placement[item] = (op.id, gallery) }
            case .delete(let item):
                deleted.insert(item)
            case .update(let item, .trashed, let value):
                if trashed[item].map({ $0.0 < op.id }) ?? true { trashed[item] = (op.id, value != .none) }
            case .renameGallery(let name, let title):
                if galleryLive[name].map({ $0.0 < op.id }) ?? true { galleryLive[name] = (op.id, true) }
                if galleryTitle[name].map({ $0.0 < op.id }) ?? true { galleryTitle[name] = (op.id, title) }
            case .deleteGallery(let name):
                if galleryLive[name].map({ $0.0 < op.id }) ?? true { galleryLive[name] = (op.id, false) }
            default:
                break
            }
        }
        var seen: [OpID: Int] = [:]
        for gallery in replica.galleries {
            for item in (try? replica.items(in: gallery)) ?? [] { seen[item.id, default: 0] += 1 }
        }
        for item in replica.trash { seen[item.id, default: 0] += 1 }
        for (id, (_, gallery)) in placement {
            let galleryDeleted = galleryLive[gallery]?.1 == false
            let inTrash = !deleted.contains(id) && (trashed[id]?.1 == true || galleryDeleted)
            guard let item = replica.item(id) else { problems.append("\(label(id)) unknown"); continue }
            if item.isInTrash != inTrash { problems.append("\(label(id)) in the Trash: \(item.isInTrash), implied \(inTrash)") }
            let expected = deleted.contains(id) ? 0 : 1
            if seen[id, default: 0] != expected { problems.append("\(label(id)) shown \(seen[id, default: 0]) times, implied \(expected)") }
        }
        for (identity, (_, title)) in galleryTitle where galleryLive[identity]?.1 != false {
            guard let shown = replica.shownName(ofIdentity: identity), shown.name.hasPrefix(title) else {
                problems.append("gallery \(identity) shown as \(replica.shownName(ofIdentity: identity)?.name ?? "nothing"), implied \(title)")
                continue
            }
        }
        // A pure function of the set of ops: a fresh replica given them in reverse, and the snapshot, agree.
        var fresh = Replica(id: ReplicaID(deriving: "fresh"), bufferLimit: .max)
        for op in ops.reversed() { fresh.receive(op) }
        if fresh.galleries != replica.galleries || fresh.trash != replica.trash.map({ $0 }) {
            problems.append("a replica given the ops in reverse shows something else")
        }
        for gallery in replica.galleries where (try? fresh.items(in: gallery)) != (try? replica.items(in: gallery)) {
            problems.append("gallery \(gallery) differs when the ops arrive in reverse")
        }
        if let decoded = try? Replica(decodingState: replica.encodedState()) {
            if decoded.galleries != replica.galleries || decoded.trash != replica.trash { problems.append("the snapshot shows something else") }
        } else {
            problems.append("the snapshot does not decode")
        }
        return problems
    }
}

import Foundation
@testable import GalleryModel
@testable import GallerySimulation

/// A seeded random history of one space, played on in-memory replicas, with its own record of what
/// the history must lead to.
///
/// 3 to 5 replicas create 2 or 3 galleries concurrently (most names on several replicas: rule 14),
/// then make random ops (runs of 1-4 items, some of them placeholders; moves within and across
/// galleries; deletes; field updates; commits; late creations of a gallery name) at random
/// replicas, between random pairwise syncs whose ops arrive shuffled and sometimes twice. Some
/// histories also deliver random subsets of the missing ops, so that early ops wait in the buffer
/// across syncs. Everyone then syncs with everyone, and `verify()` checks every replica against
/// the others and against the record kept while the ops were made: which items were inserted and
/// deleted, the gallery of each item's last move, the last value of each field, commits.
///
/// The same seed always gives the same history. A history without subset deliveries is also a
/// `Schedule` (`steps`, `scheduleJSON`) that `Simulator` and `gallery simulate` replay op for op.
struct RandomSchedule {
    /// The seed the whole history derives from.
    let seed: UInt64
    /// Replica names; each replica's ID is `ReplicaID(deriving:)` its name, as in `Simulator`.
    private(set) var names: [String] = []
    /// The replicas, in the order of `names`.
    private(set) var replicas: [Replica] = []
    /// The gallery names this history draws from.
    private(set) var galleryPool: [String] = []
    /// The gallery names some replica created.
    private(set) var createdGalleries: Set<String> = []
    /// Whether this history delivers random subsets of the missing ops (not expressible as a `Schedule`).
    private(set) var usesSubsetDelivery = false
    /// The history as simulator steps; exact when `usesSubsetDelivery` is false.
    private(set) var steps: [Schedule.Step] = []
    /// The history as one line per step, subset deliveries included, for failure reports; the
    /// steps that problems name are line numbers here (from 1).
    private(set) var trace: [String] = []
    /// What each inserted item must end as, by item ID.
    private(set) var expectations: [OpID: Expectation] = [:]
    /// Everything that went wrong, in order; empty when the history passed.
    private(set) var problems: [String] = []

    var rng: SeededGenerator
    var labels: [OpID: String] = [:]
    var reported: Set<String> = []
    /// Prefixed to problems while set, e.g. the step after which a view is checked.
    var context = ""
    var nextLabel = 0
    var syncProbability = 0.3

    /// Creates the history of `seed`; nothing happens before `run()`.
    init(seed: UInt64) {
        self.seed = seed
        self.rng = SeededGenerator(seed: seed)
    }

    /// Plays the whole history, then checks it; `problems` says what failed.
    mutating func run() {
        setUp()
        let rounds = Int.random(in: 3...6, using: &rng)
        for _ in 0..<rounds {
            let opCount = Int.random(in: 3...9, using: &rng)
            for _ in 0..<opCount {
                randomOp(at: Int.random(in: replicas.indices, using: &rng))
                if chance(syncProbability) { randomSync() }
            }
            // Between rounds a few links come back at once.
            for _ in 0..<Int.random(in: 0...2, using: &rng) { randomSync() }
        }
        syncEveryone()
        verify()
    }

    // MARK: Setting up

    /// Makes the replicas and their concurrent gallery creations.
    mutating func setUp() {
        let replicaCount = Int.random(in: 3...5, using: &rng)
        // Random suffixes vary the order of replica IDs, which breaks ties between concurrent ops.
        names = (0..<replicaCount).map { "r\($0)-\(Int.random(in: 0..<1000, using: &rng))" }
        replicas = names.map { Replica(id: ReplicaID(deriving: $0), bufferLimit: 100_000) }
        galleryPool = (0..<Int.random(in: 2...3, using: &rng)).map { "g\($0)" }
        usesSubsetDelivery = chance(0.5)
        syncProbability = Double.random(in: 0.1...0.6, using: &rng)

        var creators: [(replica: Int, gallery: String)] = []
        var covered = Set<Int>()
        for gallery in galleryPool {
            let count = Int.random(in: 1...min(3, replicaCount), using: &rng)
            for replica in replicas.indices.shuffled(using: &rng).prefix(count) {
                creators.append((replica, gallery))
                covered.insert(replica)
            }
        }
        for replica in replicas.indices where !covered.contains(replica) {
            creators.append((replica, galleryPool.randomElement(using: &rng)!))
        }
        creators.shuffle(using: &rng)
        for (replica, gallery) in creators {
            createGallery(gallery, at: replica)
        }
    }

    // MARK: Local ops

    /// One random op at a replica, chosen among those its current view allows.
    mutating func randomOp(at replica: Int) {
        let live = liveItems(of: replica)
        let roll = Int.random(in: 0..<100, using: &rng)
        if live.isEmpty || roll < 30 {
            insertRun(at: replica)
        } else if roll < 55 {
            move(live.randomElement(using: &rng)!, at: replica)
        } else if roll < 65 {
            delete(live.randomElement(using: &rng)!.id, at: replica)
        } else if roll < 85 {
            update(live.randomElement(using: &rng)!.id, at: replica)
        } else if roll < 96 {
            if let placeholder = live.filter({ $0.state == .placeholder }).randomElement(using: &rng) {
                commit(placeholder.id, at: replica)
            } else {
                insertRun(at: replica)
            }
        } else {
            createGallery(galleryPool.randomElement(using: &rng)!, at: replica)
        }
    }

    mutating func createGallery(_ name: String, at replica: Int) {
        let step = Schedule.Step.createGallery(at: names[replica], name: name)
        guard let op = perform(step, at: replica, { try $0.createGallery(name) }) else { return }
        createdGalleries.insert(name)
        if !replicas[replica].hasGallery(name) {
            problem("after \(op.id) creating \"\(name)\", \(names[replica]) has no such gallery")
        }
    }

    mutating func insertRun(at replica: Int) {
        let gallery = replicas[replica].galleries.randomElement(using: &rng)!
        let count = (try? replicas[replica].count(in: gallery)) ?? 0
        let index = Int.random(in: 0...count, using: &rng)
        let length = [1, 1, 1, 2, 2, 3, 4].randomElement(using: &rng)!
        let placeholders = chance(0.3)
        let newLabels = (0..<length).map { _ in makeLabel() }
        let drafts = newLabels.map { placeholders ? ItemDraft.placeholder($0) : ItemDraft.titled($0) }
        let step = Schedule.Step.insert(
            at: names[replica], labels: newLabels, gallery: gallery, index: index, placeholders: placeholders)
        guard let op = perform(step, at: replica, { try $0.insert(drafts, into: gallery, at: index) }) else { return }
        let ids = (0..<length).map { op.id.advanced(by: $0) }
        for (offset, id) in ids.enumerated() {
            labels[id] = newLabels[offset]
            expectations[id] = Expectation(
                label: newLabels[offset], gallery: gallery, galleryStamp: id,
                insertedAsPlaceholder: placeholders, fields: drafts[offset].fields)
        }
        let shown = ((try? replicas[replica].items(in: gallery)) ?? []).map(\.id)
        if shown.count < index + length || Array(shown[index..<(index + length)]) != ids {
            problem("\(op.id) did not put its run \(describe(ids)) at \(gallery)[\(index)] on \(names[replica])")
        }
    }

    mutating func move(_ item: Item, at replica: Int) {
        let sameGallery = chance(0.5)
        let target = sameGallery ? item.gallery : replicas[replica].galleries.randomElement(using: &rng)!
        let count = (try? replicas[replica].count(in: target)) ?? 0
        let index = Int.random(in: 0...(target == item.gallery ? count - 1 : count), using: &rng)
        let step = Schedule.Step.move(at: names[replica], label: label(item.id), gallery: target, index: index)
        guard let op = perform(step, at: replica, { try $0.move(item.id, to: target, at: index) }) else { return }
        if op.id > expectations[item.id]!.galleryStamp {
            expectations[item.id]!.gallery = target
            expectations[item.id]!.galleryStamp = op.id
        }
        if let place = replicas[replica].location(of: item.id), place == (target, index) {
            return
        }
        problem("\(op.id) did not put \(label(item.id)) at \(target)[\(index)] on \(names[replica])")
    }

    mutating func delete(_ item: OpID, at replica: Int) {
        let step = Schedule.Step.delete(at: names[replica], label: label(item))
        guard let op = perform(step, at: replica, { try $0.delete(item) }) else { return }
        expectations[item]!.deleted = true
        if replicas[replica].location(of: item) != nil {
            problem("\(op.id) did not delete \(label(item)) on \(names[replica])")
        }
    }

    mutating func update(_ item: OpID, at replica: Int) {
        // The Trash has its own randomized test (`TrashConvergenceTests`): its register hides items.
        let field = ItemField.allCases.filter { $0 != .trashed }.randomElement(using: &rng)!
        let (value, json) = randomValue(for: field, at: replica)
        let step = Schedule.Step.update(at: names[replica], label: label(item), field: field, value: json)
        guard let op = perform(step, at: replica, { try $0.update(item, field, to: value) }) else { return }
        if op.id > expectations[item]!.fieldStamps[field] ?? item {
            expectations[item]!.fieldStamps[field] = op.id
            expectations[item]!.fields[field] = value == .none ? nil : value
        }
        if replicas[replica].item(item)?.fields[field] != (value == .none ? nil : value) {
            problem("\(op.id) did not set \(field) of \(label(item)) on \(names[replica])")
        }
    }

    mutating func commit(_ item: OpID, at replica: Int) {
        let step = Schedule.Step.commit(at: names[replica], label: label(item))
        guard let op = perform(step, at: replica, { try $0.commit(item) }) else { return }
        expectations[item]!.committed = true
        if replicas[replica].item(item)?.state != .ready {
            problem("\(op.id) did not make \(label(item)) ready on \(names[replica])")
        }
    }

    /// Runs a local command, records its step, and checks the op it returns.
    mutating func perform(
        _ step: Schedule.Step, at replica: Int, _ command: (inout Replica) throws -> Op
    ) -> Op? {
        steps.append(step)
        trace.append(Self.json(step))
        let clock = replicas[replica].lamportClock
        let op: Op
        do {
            op = try command(&replicas[replica])
        } catch {
            problem("step \(trace.count) (\(Self.json(step))) threw \(error)")
            return nil
        }
        if op.id.replica != replicas[replica].id || op.id.counter <= clock
            || replicas[replica].lamportClock < op.lastCounter || !replicas[replica].contains(op.id) {
            problem("step \(trace.count) made op \(op.id) with clock \(clock) -> \(replicas[replica].lamportClock)")
        }
        return op
    }

    /// A random value of the field's type (sometimes `.none`), and the same value in a schedule.
    mutating func randomValue(for field: ItemField, at replica: Int) -> (FieldValue, JSONValue) {
        if chance(0.1) { return (.none, .null) }
        let n = Int.random(in: 0..<1000, using: &rng)
        switch field {
        case .title: return (.text("t\(n)"), .string("t\(n)"))
        case .url: return (.text("https://example.com/\(n).png"), .string("https://example.com/\(n).png"))
        case .contentHash:
            // A SHA-256 in hex, as `FieldLimits` requires.
            let hex = String(n, radix: 16)
            let hash = String(repeating: "0", count: FieldLimits.contentHashLength - hex.count) + hex
            return (.text(hash), .string(hash))
        case .mediaType:
            let type = ["image/png", "image/jpeg", "image/gif"][n % 3]
            return (.text(type), .string(type))
        case .aspectRatio: return (.number(Double(n + 1) / 100), .number(Double(n + 1) / 100))
        case .byteSize:
            let size = Int64.random(in: 0...5_000_000_000, using: &rng)
            return (.integer(size), .number(Double(size)))
        case .origin:
            let other = liveItems(of: replica).randomElement(using: &rng)!.id
            return (.id(other), .string(label(other)))
        case .trashed: return (.integer(Int64(n)), .number(Double(n)))
        }
    }

    // MARK: Delivery

    /// One pairwise sync, in full (as `Schedule.Step.sync` does it) or, in some histories, of a
    /// random subset of the missing ops.
    mutating func randomSync() {
        let from = Int.random(in: replicas.indices, using: &rng)
        var to = Int.random(in: 0..<(replicas.count - 1), using: &rng)
        if to >= from { to += 1 }
        if usesSubsetDelivery && chance(0.5) {
            var subset = replicas[from].ops(missingFrom: replicas[to].version).filter { _ in chance(0.6) }
            if chance(0.3) { subset += subset.filter { _ in chance(0.5) } }
            subset.shuffle(using: &rng)
            trace.append("{\"deliver\": [\"\(names[from])\", \"\(names[to])\"], \"ops\": \(subset.map { "\($0.id)" })}")
            deliver(subset, to: to)
            checkView(of: to, afterStep: trace.count)
        } else {
            // Shuffle seeds stay below 2^53 so that `scheduleJSON` carries them exactly.
            let shuffle: UInt64? = chance(0.85) ? rng.next() >> 11 : nil
            sync(from: from, to: to, shuffle: shuffle, duplicate: chance(0.3))
        }
    }

    /// Delivers to `to` every op `from` has and `to` lacks, exactly as `Simulator` does.
    mutating func sync(from: Int, to: Int, shuffle: UInt64?, duplicate: Bool) {
        let step = Schedule.Step.sync(from: names[from], to: names[to], shuffle: shuffle, duplicate: duplicate)
        steps.append(step)
        trace.append(Self.json(step))
        let missing = replicas[from].ops(missingFrom: replicas[to].version)
        var deliveries = duplicate ? missing + missing : missing
        if let shuffle {
            var generator = SeededGenerator(seed: shuffle)
            deliveries.shuffle(using: &generator)
        }
        deliver(deliveries, to: to)
        if !usesSubsetDelivery && replicas[to].bufferedCount != 0 {
            let waiting = replicas[to].missingDependencies
            problem("step \(trace.count): \(names[to]) holds \(replicas[to].bufferedCount) ops waiting for \(waiting)")
        }
        checkView(of: to, afterStep: trace.count)
    }

    /// Makes every replica have every op: all to the first, then the first to all; shuffled and
    /// duplicated unless the history must stay a `Schedule` (whose `syncAll` does neither).
    mutating func syncEveryone() {
        if !usesSubsetDelivery {
            steps.append(.syncAll)
            trace.append(Self.json(.syncAll))
        }
        for replica in replicas.indices.dropFirst() {
            everything(from: replica, to: 0)
        }
        for replica in replicas.indices.dropFirst() {
            everything(from: 0, to: replica)
        }
    }

    mutating func everything(from: Int, to: Int) {
        var deliveries = replicas[from].ops(missingFrom: replicas[to].version)
        if usesSubsetDelivery {
            if chance(0.3) { deliveries += deliveries }
            deliveries.shuffle(using: &rng)
            trace.append("{\"deliver\": [\"\(names[from])\", \"\(names[to])\"], \"ops\": \"all missing, shuffled\"}")
        }
        deliver(deliveries, to: to)
    }

    /// Hands ops to a replica one by one and checks each outcome.
    mutating func deliver(_ ops: [Op], to replica: Int) {
        for op in ops {
            let outcome = replicas[replica].receive(op)
            switch outcome {
            case .applied:
                if !replicas[replica].contains(op.id) {
                    problem("\(names[replica]) reported \(op.id) applied but does not contain it")
                }
            case .buffered(let dependency):
                if replicas[replica].contains(dependency) {
                    problem("\(names[replica]) buffered \(op.id) waiting for \(dependency), which it has")
                }
            case .duplicate:
                break
            case .rejected(let error):
                problem("\(names[replica]) rejected \(op.id) (\(op.action)): \(error)")
            }
        }
    }

    // MARK: Helpers

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &rng) < probability
    }

    mutating func makeLabel() -> String {
        nextLabel += 1
        return "i\(nextLabel)"
    }

    func label(_ id: OpID) -> String {
        labels[id] ?? id.description
    }

    func describe(_ ids: [OpID]) -> String {
        "[" + ids.map(label).joined(separator: " ") + "]"
    }

    func liveItems(of replica: Int) -> [Item] {
        replicas[replica].galleries.flatMap { (try? replicas[replica].items(in: $0)) ?? [] }
    }

    /// Records a problem once, however many checks see it again.
    mutating func problem(_ text: String) {
        if reported.insert(context + text).inserted { problems.append(context + text) }
    }

    /// The history as a `gallery simulate` file; exact when `usesSubsetDelivery` is false.
    var scheduleJSON: String {
        "{\"replicas\": [" + names.map { "\"\($0)\"" }.joined(separator: ", ") + "], \"steps\": [\n  "
            + steps.map(Self.json).joined(separator: ",\n  ") + "\n]}"
    }
}

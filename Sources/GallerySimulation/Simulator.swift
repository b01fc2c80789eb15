import Foundation
import GalleryModel

/// Replays a `Schedule` on in-memory replicas: the model's public test bench.
///
/// Replica IDs are derived from the replica names and delivery is seeded, so one schedule always
/// gives the same outcome.
package struct Simulator: Sendable {
    /// Replica names in schedule order.
    package let names: [String]
    /// The replicas by name.
    package private(set) var replicas: [String: Replica] = [:]
    /// Item IDs by label, for the whole schedule.
    package private(set) var labels: [String: OpID] = [:]
    private var labelByID: [OpID: String] = [:]

    /// Creates replicas with the given names, each empty.
    package init(replicas names: [String]) throws(SimulationError) {
        self.names = names
        var seen: [ReplicaID: String] = [:]
        for name in names {
            let id = ReplicaID(deriving: name)
            if let other = seen[id] { throw .malformedSchedule("replicas \"\(other)\" and \"\(name)\" derive the same ID") }
            seen[id] = name
            replicas[name] = Replica(id: id, bufferLimit: .max)
        }
    }

    /// Replays a whole schedule and returns the outcome.
    package static func run(_ schedule: Schedule) throws(SimulationError) -> SimulationOutcome {
        var simulator = try Simulator(replicas: schedule.replicas)
        for (offset, step) in schedule.steps.enumerated() {
            try simulator.perform(step, number: offset + 1)
        }
        return simulator.outcome()
    }

    /// Carries out one step; `number` names it in errors.
    package mutating func perform(_ step: Schedule.Step, number: Int) throws(SimulationError) {
        do {
            switch step {
            case .createGallery(let at, let name):
                try replicas[at]!.createGallery(name)
            case .insert(let at, let newLabels, let gallery, let index, let placeholders):
                var seenHere = Set<String>()
                for label in newLabels where labels[label] != nil || !seenHere.insert(label).inserted {
                    throw SimulationError.step(number, "label \"\(label)\" is already used")
                }
                let drafts = newLabels.map { placeholders ? ItemDraft.placeholder($0) : ItemDraft.titled($0) }
                let op = try replicas[at]!.insertRun(drafts, into: gallery, at: index)[0]
                for (offset, label) in newLabels.enumerated() {
                    labels[label] = op.id.advanced(by: offset)
                    labelByID[op.id.advanced(by: offset)] = label
                }
            case .commit(let at, let label):
                try replicas[at]!.commit(try item(label, at: at, step: number))
            case .move(let at, let label, let gallery, let index):
                try replicas[at]!.move(try item(label, at: at, step: number), to: gallery, at: index)
            case .delete(let at, let label):
                try replicas[at]!.delete(try item(label, at: at, step: number))
            case .update(let at, let label, let field, let value):
                let id = try item(label, at: at, step: number)
                try replicas[at]!.update(id, field, to: try fieldValue(value, for: field, at: at, step: number))
            case .trash(let at, let label):
                try replicas[at]!.trash(try item(label, at: at, step: number), at: 0)
            case .restore(let at, let label):
                try replicas[at]!.restore(try item(label, at: at, step: number))
            case .renameGallery(let at, let name, let newName):
                try replicas[at]!.renameGallery(name, to: newName)
            case .deleteGallery(let at, let name):
                let items = try replicas[at]!.items(in: name)
                for item in items { try replicas[at]!.trash(item.id, at: 0) }
                try replicas[at]!.deleteGallery(name)
            case .sync(let from, let to, let shuffle, let duplicate):
                try sync(from: from, to: to, shuffle: shuffle, duplicate: duplicate, step: number)
            case .syncAll:
                for name in names.dropFirst() {
                    try sync(from: name, to: names[0], shuffle: nil, duplicate: false, step: number)
                }
                for name in names.dropFirst() {
                    try sync(from: names[0], to: name, shuffle: nil, duplicate: false, step: number)
                }
            }
        } catch let error as SimulationError {
            throw error
        } catch let error as ModelError {
            throw .step(number, describe(error))
        } catch {
            throw .step(number, error.localizedDescription)
        }
    }

    /// Delivers to `to` every op `from` has and `to` lacks.
    private mutating func sync(from: String, to: String, shuffle: UInt64?, duplicate: Bool, step: Int) throws(SimulationError) {
        let missing = replicas[from]!.ops(missingFrom: replicas[to]!.version)
        var deliveries = duplicate ? missing + missing : missing
        if let shuffle {
            var generator = SeededGenerator(seed: shuffle)
            deliveries.shuffle(using: &generator)
        }
        for op in deliveries {
            if case .rejected(let error) = replicas[to]!.receive(op) {
                throw .step(step, "\(to) refused op \(op.id): \(describe(error))")
            }
        }
        guard replicas[to]!.bufferedCount == 0 else {
            let missing = replicas[to]!.missingDependencies.map(\.description).joined(separator: ", ")
            throw .step(step, "\(to) still holds \(replicas[to]!.bufferedCount) ops waiting for \(missing)")
        }
    }

    private func item(_ label: String, at replica: String, step: Int) throws(SimulationError) -> OpID {
        guard let id = labels[label] else { throw .step(step, "unknown label \"\(label)\"") }
        guard replicas[replica]!.item(id) != nil else {
            throw .step(step, "item \"\(label)\" is not known to replica \(replica) yet")
        }
        return id
    }

    private func fieldValue(_ value: JSONValue, for field: ItemField, at replica: String, step: Int) throws(SimulationError) -> FieldValue {
        switch (field, value) {
        case (_, .null): return .none
        case (.title, .string(let text)), (.url, .string(let text)), (.contentHash, .string(let text)),
             (.mediaType, .string(let text)):
            return .text(text)
        case (.aspectRatio, .number(let number)):
            return .number(number)
        case (.byteSize, .number(let number)) where number.rounded(.towardZero) == number && abs(number) < 9e15,
             (.trashed, .number(let number)) where number.rounded(.towardZero) == number && abs(number) < 9e15:
            return .integer(Int64(number))
        case (.origin, .string(let label)):
            return .id(try item(label, at: replica, step: step))
        default:
            throw .step(step, "\(value.typeName) is not a valid value for field \(field)")
        }
    }

    /// A model error in the schedule's terms: labels rather than op IDs.
    private func describe(_ error: ModelError) -> String {
        switch error {
        case .unknownItem(let id): "unknown item \"\(labelByID[id] ?? id.description)\""
        case .itemDeleted(let id): "item \"\(labelByID[id] ?? id.description)\" was deleted"
        case .notAPlaceholder(let id): "item \"\(labelByID[id] ?? id.description)\" is not a placeholder"
        case .itemInTrash(let id): "item \"\(labelByID[id] ?? id.description)\" is in the Trash"
        case .notInTrash(let id): "item \"\(labelByID[id] ?? id.description)\" is not in the Trash"
        default: error.localizedDescription
        }
    }

    /// What every replica shows now.
    package func outcome() -> SimulationOutcome {
        var views: [SimulationOutcome.ReplicaView] = []
        for name in names {
            let replica = replicas[name]!
            let galleries = replica.galleries.map { gallery in
                SimulationOutcome.GalleryView(name: gallery, items: ((try? replica.items(in: gallery)) ?? []).map {
                    SimulationOutcome.Entry(label: labelByID[$0.id] ?? $0.id.description, title: $0.title, state: $0.state)
                })
            }
            let trash = replica.trash.map {
                SimulationOutcome.Entry(label: labelByID[$0.id] ?? $0.id.description, title: $0.title, state: $0.state)
            }
            views.append(SimulationOutcome.ReplicaView(name: name, galleries: galleries, trash: trash))
        }
        return SimulationOutcome(replicas: views)
    }
}

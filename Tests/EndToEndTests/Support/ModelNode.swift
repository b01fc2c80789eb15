import Foundation
import GalleryModel
import GallerySimulation
import GalleryWire

/// What one node must show of the commands it acknowledged: a model `Replica` that replays them in
/// order (a node applies its commands one at a time), and the node's ID of every model item.
///
/// The model holds only the galleries this workload creates and touches; its item IDs differ from
/// the node's (another replica ID, and a node with a peer also counts the peer's ops), so `names`
/// maps them. Positions, titles and gallery membership do not depend on the IDs when one replica
/// makes all the ops of a gallery.
struct ModelNode: Sendable {
    /// The model replica.
    private(set) var replica: Replica
    /// The node's ID of each model item.
    private(set) var names: [OpID: String] = [:]
    /// Commands the node acknowledged, and how many of each kind.
    private(set) var acknowledged: [String: Int] = [:]
    /// Whether the node's space holds only this model's galleries (no peer adds its own).
    let ownsWholeSpace: Bool
    private let prefix: String
    private let files: [String]
    private var random: SeededGenerator
    private var serial = 0

    /// A model of a node whose own gallery is `name`, drawing its commands from `seed`; `files`
    /// are image files that `add` may use besides URLs.
    init(name: String, seed: UInt64, files: [String], ownsWholeSpace: Bool) {
        var replica = Replica(id: ReplicaID(deriving: "model-\(name)"))
        _ = try? replica.createGallery(name)
        self.replica = replica
        self.prefix = name
        self.files = files
        self.ownsWholeSpace = ownsWholeSpace
        self.random = SeededGenerator(seed: seed)
    }

    /// The node's name of a model item (its `COUNTER@REPLICA`).
    func name(of id: OpID) -> String {
        names[id] ?? "unknown-\(id)"
    }

    /// Draws the next command, valid on the model's current state (which is the node's).
    mutating func nextCommand(round: Int) -> WorkloadCommand {
        serial += 1
        let galleries = replica.galleries
        let live = galleries.flatMap { (try? replica.items(in: $0)) ?? [] }.map(\.id)
        let roll = Int.random(in: 0..<100, using: &random)
        let byPlace = Bool.random(using: &random)
        if live.isEmpty || roll < 35 {
            let gallery = galleries.randomElement(using: &random)!
            let count = (try? replica.count(in: gallery)) ?? 0
            var sources = ["https://example.org/\(prefix)-r\(round)-c\(serial).png"]
            if Int.random(in: 0..<4, using: &random) == 0 {
                sources.append("https://example.org/\(prefix)-r\(round)-c\(serial)b.jpg")
            }
            if !files.isEmpty, Int.random(in: 0..<5, using: &random) == 0 {
                sources[0] = files.randomElement(using: &random)!
            }
            return .add(sources: sources, gallery: gallery, index: Int.random(in: 0...count, using: &random))
        }
        let item = live.randomElement(using: &random)!
        switch roll {
        case ..<62:
            let current = replica.location(of: item)?.gallery ?? galleries[0]
            let target = Bool.random(using: &random) ? current : galleries.randomElement(using: &random)!
            let count = (try? replica.count(in: target)) ?? 0
            // Counted once the item has left its place: one fewer when it stays in its gallery.
            let last = target == current ? count - 1 : count
            return .move(item: item, gallery: target, index: Int.random(in: 0...last, using: &random), byPlace: byPlace)
        case ..<76:
            return .delete(item: item, byPlace: byPlace)
        case 92..<96 where galleries.count < 5:
            return .newGallery("\(prefix)-g\(serial)")
        default:
            return .update(item: item, title: "\(prefix)-t\(serial)", byPlace: byPlace)
        }
    }

    /// Records a command the node acknowledged, with what it printed (`add`: the new IDs).
    mutating func acknowledge(_ command: WorkloadCommand, output: String) throws {
        let ids = try command.apply(to: &replica)
        var printed = output.split(separator: "\n").map(String.init)
        // `delete` moves the item to the Trash and says so in one line.
        if case .delete = command {
            guard printed == ["Moved 1 item to Trash"] else { throw ModelMismatch("\(command): the node printed \(printed)") }
            printed = []
        }
        guard printed.count == ids.count else {
            throw ModelMismatch("\(command): the node printed \(printed) for \(ids.count) new items")
        }
        for (id, name) in zip(ids, printed) {
            guard !names.values.contains(name) else { throw ModelMismatch("\(command): the node reused the ID \(name)") }
            names[id] = name
        }
        acknowledged[Self.kind(command), default: 0] += 1
    }

    /// Checks the node's galleries against the model. A command in flight when the node was
    /// killed (`pending`, not acknowledged) may or may not have happened: both outcomes pass, and
    /// the model takes the one found. With `opCount` (a node without peers), the node's op count
    /// must match too. Returns nil when the node matches, else what differs.
    mutating func settle(_ listings: [GalleryListing], opCount: Int?, pending: WorkloadCommand?) -> String? {
        var learned: [OpID: String] = [:]
        let without = difference(listings, model: replica, opCount: opCount, learned: &learned)
        guard let without else { return nil }
        guard let pending else { return without }
        var with = replica
        do {
            try pending.apply(to: &with)
        } catch {
            return "\(without); the command in flight (\(pending)) fails on the model: \(error)"
        }
        learned = [:]
        if let other = difference(listings, model: with, opCount: opCount, learned: &learned) {
            return "without the command in flight (\(pending)): \(without); with it: \(other)"
        }
        replica = with
        names.merge(learned) { old, _ in old }
        acknowledged["in flight, applied", default: 0] += 1
        return nil
    }

    /// The first difference between the node's listing and `model`, learning the node's IDs of
    /// items the model has no name for yet; nil when they match.
    private func difference(_ listings: [GalleryListing], model: Replica, opCount: Int?, learned: inout [OpID: String]) -> String? {
        let actual = Dictionary(listings.map { ($0.gallery, $0.items) }, uniquingKeysWith: { first, _ in first })
        let expected = model.galleries
        if ownsWholeSpace, Set(actual.keys) != Set(expected) {
            return "galleries \(actual.keys.sorted()), expected \(expected.sorted())"
        }
        var used = Set(names.values)
        for gallery in expected {
            guard let items = actual[gallery] else { return "gallery \(gallery) is missing" }
            let modelItems = (try? model.items(in: gallery)) ?? []
            guard items.count == modelItems.count else {
                return "\(gallery) holds \(items.count) items, expected \(modelItems.count): "
                    + "\(items.map(\.id)) vs \(modelItems.map { name(of: $0.id) })"
            }
            for (index, (item, modelItem)) in zip(items, modelItems).enumerated() {
                if let known = names[modelItem.id] ?? learned[modelItem.id] {
                    guard known == item.id else { return "\(gallery):\(index) is \(item.id), expected \(known)" }
                } else {
                    guard !used.contains(item.id) else { return "\(gallery):\(index) is \(item.id), expected a new item" }
                    learned[modelItem.id] = item.id
                    used.insert(item.id)
                }
                guard item.title == modelItem.title else {
                    return "\(gallery):\(index) (\(item.id)) is titled \(item.title ?? "nil"), expected \(modelItem.title ?? "nil")"
                }
            }
        }
        if let opCount, opCount != model.opCount { return "the node has \(opCount) ops, expected \(model.opCount)" }
        return nil
    }

    private static func kind(_ command: WorkloadCommand) -> String {
        switch command {
        case .add: "add"
        case .move: "move"
        case .delete: "delete"
        case .update: "update"
        case .newGallery: "new-gallery"
        }
    }
}

/// The node did something the model of its acknowledged commands cannot explain.
enum ModelMismatch: LocalizedError {
    /// What the node did, and what the model expected.
    case unexplained(String)

    init(_ description: String) { self = .unexplained(description) }

    var errorDescription: String? {
        switch self {
        case .unexplained(let description): description
        }
    }
}

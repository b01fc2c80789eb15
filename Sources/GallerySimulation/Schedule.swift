import Foundation
import GalleryModel

/// A schedule of ops on named in-memory replicas, as read from a `gallery simulate` file.
///
/// The file format is a contract documented in the README: an object with `replicas` (names) and
/// `steps`, each step either an op at a replica (`createGallery`, `insert`, `insertPlaceholder`,
/// `commit`, `move`, `delete`, `update`, `trash`, `restore`, `renameGallery`, `deleteGallery`) or a
/// delivery (`sync`, `syncAll`).
package struct Schedule: Hashable, Sendable {
    /// The replica names, in the order of the file.
    package var replicas: [String]
    /// The steps, in order.
    package var steps: [Step]

    /// One step of a schedule.
    package enum Step: Hashable, Sendable {
        case createGallery(at: String, name: String)
        case insert(at: String, labels: [String], gallery: String, index: Int, placeholders: Bool)
        case commit(at: String, label: String)
        case move(at: String, label: String, gallery: String, index: Int)
        case delete(at: String, label: String)
        case update(at: String, label: String, field: ItemField, value: JSONValue)
        /// Moves an item to the Trash (at the simulated time 0).
        case trash(at: String, label: String)
        /// Brings an item back from the Trash.
        case restore(at: String, label: String)
        /// Renames a gallery (named as that replica shows it).
        case renameGallery(at: String, name: String, to: String)
        /// Deletes a gallery: its items go to the Trash.
        case deleteGallery(at: String, name: String)
        /// Delivers to `to` every op `from` has and `to` lacks; shuffled by a seed; each twice.
        case sync(from: String, to: String, shuffle: UInt64?, duplicate: Bool)
        /// Makes every replica have every op.
        case syncAll
    }

    /// Creates a schedule.
    package init(replicas: [String], steps: [Step]) {
        self.replicas = replicas
        self.steps = steps
    }

    /// Reads a schedule from JSON text.
    package init(json data: Data) throws(SimulationError) {
        let root: JSONValue
        do {
            root = try JSONValue.parse(data)
        } catch {
            throw .malformedSchedule("not valid JSON")
        }
        guard case .object(let object) = root else { throw .malformedSchedule("the top level must be an object") }
        if let unknown = Set(object.keys).subtracting(["replicas", "steps"]).sorted().first {
            throw .malformedSchedule("unknown key \"\(unknown)\"")
        }
        guard case .array(let names)? = object["replicas"] else {
            throw .malformedSchedule("\"replicas\" must be an array of names")
        }
        var replicas: [String] = []
        for name in names {
            guard case .string(let name) = name, !name.isEmpty else {
                throw .malformedSchedule("\"replicas\" must be an array of non-empty names")
            }
            guard !replicas.contains(name) else { throw .malformedSchedule("replica \"\(name)\" is listed twice") }
            replicas.append(name)
        }
        guard !replicas.isEmpty else { throw .malformedSchedule("\"replicas\" is empty") }
        guard case .array(let steps)? = object["steps"] else {
            throw .malformedSchedule("\"steps\" must be an array")
        }
        var parsed: [Step] = []
        for (offset, step) in steps.enumerated() {
            parsed.append(try StepReader(number: offset + 1, value: step, replicas: replicas).read())
        }
        self.init(replicas: replicas, steps: parsed)
    }
}

/// Reads one step, checking its keys and types.
private struct StepReader {
    let number: Int
    let value: JSONValue
    let replicas: [String]

    private static let opKeys: Set<String> = [
        "createGallery", "insert", "insertPlaceholder", "commit", "move", "delete", "update",
        "trash", "restore", "renameGallery", "deleteGallery",
    ]

    func read() throws(SimulationError) -> Schedule.Step {
        guard case .object(let fields) = value else { throw fail("a step must be an object") }
        if fields["syncAll"] != nil {
            try only(fields, ["syncAll"])
            guard fields["syncAll"] == .bool(true) else { throw fail("\"syncAll\" must be true") }
            return .syncAll
        }
        if let pair = fields["sync"] {
            try only(fields, ["sync", "shuffle", "duplicate"])
            guard case .array(let names) = pair, names.count == 2,
                  case .string(let from) = names[0], case .string(let to) = names[1] else {
                throw fail("\"sync\" must be [FROM, TO]")
            }
            try known(from)
            try known(to)
            guard from != to else { throw fail("\"sync\" needs two different replicas") }
            var shuffle: UInt64?
            if let seed = fields["shuffle"] { shuffle = UInt64(try integer(seed, "shuffle")) }
            var duplicate = false
            if let flag = fields["duplicate"] {
                guard case .bool(let value) = flag else { throw fail("\"duplicate\" must be true or false") }
                duplicate = value
            }
            return .sync(from: from, to: to, shuffle: shuffle, duplicate: duplicate)
        }
        let ops = Self.opKeys.filter { fields[$0] != nil }
        guard ops.count == 1, let op = ops.first else {
            throw fail(ops.isEmpty
                ? "a step needs one of \(Self.opKeys.sorted().joined(separator: ", ")), sync or syncAll"
                : "a step has more than one op: \(ops.sorted().joined(separator: ", "))")
        }
        guard let atValue = fields["at"] else { throw fail("\"\(op)\" needs \"at\": a replica") }
        let at = try string(atValue, "at")
        try known(at)
        switch op {
        case "createGallery":
            try only(fields, ["at", op])
            return .createGallery(at: at, name: try string(fields[op], op))
        case "insert", "insertPlaceholder":
            try only(fields, ["at", op, "gallery", "index"])
            guard case .array(let values) = fields[op], !values.isEmpty else {
                throw fail("\"\(op)\" must be a non-empty array of labels")
            }
            var labels: [String] = []
            for label in values { labels.append(try string(label, op)) }
            return .insert(
                at: at, labels: labels, gallery: try string(fields["gallery"], "gallery"),
                index: try integer(fields["index"], "index"), placeholders: op == "insertPlaceholder")
        case "move":
            try only(fields, ["at", op, "gallery", "index"])
            return .move(
                at: at, label: try string(fields[op], op), gallery: try string(fields["gallery"], "gallery"),
                index: try integer(fields["index"], "index"))
        case "update":
            try only(fields, ["at", op, "field", "value"])
            let name = try string(fields["field"], "field")
            guard let field = ItemField(name: name) else {
                let names = ItemField.allCases.map(\.description).joined(separator: ", ")
                throw fail("unknown field \"\(name)\" (one of \(names))")
            }
            guard let value = fields["value"] else { throw fail("\"update\" needs \"value\"") }
            return .update(at: at, label: try string(fields[op], op), field: field, value: value)
        case "commit":
            try only(fields, ["at", op])
            return .commit(at: at, label: try string(fields[op], op))
        case "trash":
            try only(fields, ["at", op])
            return .trash(at: at, label: try string(fields[op], op))
        case "restore":
            try only(fields, ["at", op])
            return .restore(at: at, label: try string(fields[op], op))
        case "renameGallery":
            try only(fields, ["at", op, "to"])
            return .renameGallery(at: at, name: try string(fields[op], op), to: try string(fields["to"], "to"))
        case "deleteGallery":
            try only(fields, ["at", op])
            return .deleteGallery(at: at, name: try string(fields[op], op))
        default:
            try only(fields, ["at", op])
            return .delete(at: at, label: try string(fields[op], op))
        }
    }

    private func fail(_ reason: String) -> SimulationError {
        .step(number, reason)
    }

    private func only(_ fields: [String: JSONValue], _ allowed: Set<String>) throws(SimulationError) {
        if let unknown = Set(fields.keys).subtracting(allowed).sorted().first {
            throw fail("unknown key \"\(unknown)\"")
        }
    }

    private func known(_ replica: String) throws(SimulationError) {
        guard replicas.contains(replica) else { throw fail("unknown replica \"\(replica)\"") }
    }

    private func string(_ value: JSONValue?, _ key: String) throws(SimulationError) -> String {
        guard case .string(let text)? = value, !text.isEmpty else {
            throw fail("\"\(key)\" must be a non-empty string")
        }
        return text
    }

    private func integer(_ value: JSONValue?, _ key: String) throws(SimulationError) -> Int {
        guard case .number(let number)? = value, number >= 0, number <= 9_007_199_254_740_991,
              number.rounded(.towardZero) == number else {
            throw fail("\"\(key)\" must be a non-negative integer")
        }
        return Int(number)
    }
}

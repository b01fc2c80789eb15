import Foundation
@testable import GalleryModel
import GallerySimulation

/// Helpers to write simulator schedules in tests as JSON, the format of `gallery simulate`.
enum Schedules {
    /// Steps that give replica A the gallery `g` = [a, b, c, d, e] and deliver it to the others.
    static func base(_ replicas: [String] = ["A", "B"]) -> String {
        var steps = [
            #"{"at": "A", "createGallery": "g"}"#,
            #"{"at": "A", "insert": ["a", "b", "c", "d", "e"], "gallery": "g", "index": 0}"#,
        ]
        for other in replicas.dropFirst() { steps.append(#"{"sync": ["A", "\#(other)"]}"#) }
        return steps.joined(separator: ",\n")
    }

    /// Replays a schedule given as JSON text.
    static func run(json: String) throws -> SimulationOutcome {
        try Simulator.run(Schedule(json: Data(json.utf8)))
    }

    /// Replays `base(replicas)` followed by `steps` (JSON step objects separated by commas).
    static func run(replicas: [String] = ["A", "B"], _ steps: String) throws -> SimulationOutcome {
        let names = replicas.map { "\"\($0)\"" }.joined(separator: ", ")
        return try run(json: #"{"replicas": [\#(names)], "steps": [\#(base(replicas)), \#(steps)]}"#)
    }

    /// Two replicas B and C (A's copies) sharing `g` = [a, b, c, d, e] as `Replica` values, and the
    /// item IDs by label.
    static func pair() throws -> (Replica, Replica, [String: OpID]) {
        var a = Replica(id: ReplicaID(deriving: "A"))
        try a.createGallery("g")
        let op = try a.insert(["a", "b", "c", "d", "e"].map(ItemDraft.titled), into: "g", at: 0)
        var b = Replica(id: ReplicaID(deriving: "B"))
        for op in a.ops { b.receive(op) }
        let ids = Dictionary(uniqueKeysWithValues: ["a", "b", "c", "d", "e"].enumerated().map { ($1, op.id.advanced(by: $0)) })
        return (a, b, ids)
    }

    /// Delivers every op each replica lacks, both ways.
    static func sync(_ x: inout Replica, _ y: inout Replica) {
        for op in x.ops(missingFrom: y.version) { y.receive(op) }
        for op in y.ops(missingFrom: x.version) { x.receive(op) }
    }

    /// The titles of a gallery's items in order.
    static func titles(_ replica: Replica, _ gallery: String = "g") -> [String] {
        ((try? replica.items(in: gallery)) ?? []).map { $0.title ?? "?" }
    }
}

import GalleryModel
/// What each replica of a simulation shows, and whether they all agree.
package struct SimulationOutcome: Hashable, Sendable {
    /// One listed item.
    package struct Entry: Hashable, Sendable {
        package var label: String
        package var title: String?
        package var state: Item.State
    }

    /// One gallery of one replica.
    package struct GalleryView: Hashable, Sendable {
        package var name: String
        package var items: [Entry]
    }

    /// Everything one replica shows.
    package struct ReplicaView: Hashable, Sendable {
        package var name: String
        package var galleries: [GalleryView]
        /// The items in the Trash, the most recently trashed first.
        package var trash: [Entry] = []
    }

    /// The replicas in schedule order.
    package var replicas: [ReplicaView]

    /// Whether all replicas show the same galleries with the same items, and the same Trash.
    package var converged: Bool {
        replicas.dropFirst().allSatisfy { $0.galleries == replicas[0].galleries && $0.trash == replicas[0].trash }
    }

    /// The labels of a replica's Trash, the most recently trashed first, for tests.
    package func trashLabels(_ replica: String) -> [String] {
        replicas.first { $0.name == replica }?.trash.map(\.label) ?? []
    }

    /// The labels of a replica's gallery in order (empty when absent), for tests.
    package func labels(_ replica: String, _ gallery: String) -> [String] {
        replicas.first { $0.name == replica }?.galleries.first { $0.name == gallery }?.items.map(\.label) ?? []
    }

    /// The outcome as the contract's JSON:
    /// `{"converged": B, "replicas": {"A": {"g": [{"label", "title", "state"}, ...]}, ...}}`, and
    /// `"trash": {"A": [{"label", "title", "state"}, ...], ...}` when some replica's Trash holds items.
    package var json: String {
        var writer = JSONWriter()
        let keys = replicas.contains { !$0.trash.isEmpty } ? ["converged", "replicas", "trash"] : ["converged", "replicas"]
        writer.object(keys, name: { $0 }) { writer, key in
            switch key {
            case "converged":
                writer.raw(converged ? "true" : "false")
            case "replicas":
                writer.object(replicas, name: \.name) { writer, replica in
                    writer.object(replica.galleries, name: \.name) { writer, gallery in
                        writer.array(gallery.items) { writer, entry in Self.write(entry, into: &writer) }
                    }
                }
            default:
                writer.object(replicas, name: \.name) { writer, replica in
                    writer.array(replica.trash) { writer, entry in Self.write(entry, into: &writer) }
                }
            }
        }
        return writer.text
    }

    /// One entry as `{"label", "title", "state"}`.
    private static func write(_ entry: Entry, into writer: inout JSONWriter) {
        writer.object(["label", "title", "state"], name: { $0 }) { writer, key in
            switch key {
            case "label": writer.string(entry.label)
            case "title": if let title = entry.title { writer.string(title) } else { writer.raw("null") }
            default: writer.string(entry.state.rawValue)
            }
        }
    }
}

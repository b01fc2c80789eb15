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
    }

    /// The replicas in schedule order.
    package var replicas: [ReplicaView]

    /// Whether all replicas show the same galleries with the same items.
    package var converged: Bool {
        replicas.dropFirst().allSatisfy { $0.galleries == replicas[0].galleries }
    }

    /// The labels of a replica's gallery in order (empty when absent), for tests.
    package func labels(_ replica: String, _ gallery: String) -> [String] {
        replicas.first { $0.name == replica }?.galleries.first { $0.name == gallery }?.items.map(\.label) ?? []
    }

    /// The outcome as the contract's JSON:
    /// `{"converged": B, "replicas": {"A": {"g": [{"label", "title", "state"}, ...]}, ...}}`.
    package var json: String {
        var writer = JSONWriter()
        writer.object(["converged", "replicas"], name: { $0 }) { writer, key in
            if key == "converged" {
                writer.raw(converged ? "true" : "false")
                return
            }
            writer.object(replicas, name: \.name) { writer, replica in
                writer.object(replica.galleries, name: \.name) { writer, gallery in
                    writer.array(gallery.items) { writer, entry in
                        writer.object(["label", "title", "state"], name: { $0 }) { writer, key in
                            switch key {
                            case "label": writer.string(entry.label)
                            case "title": if let title = entry.title { writer.string(title) } else { writer.raw("null") }
                            default: writer.string(entry.state.rawValue)
                            }
                        }
                    }
                }
            }
        }
        return writer.text
    }
}

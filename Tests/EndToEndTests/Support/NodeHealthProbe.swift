import Foundation
import GalleryWire
import Testing

/// `status --json` of a node in a `NodeSpace`, decoded.
extension NodeSpace {
    /// The node's status; nil when the command failed.
    func status(of name: String) throws -> NodeStatus? {
        let result = try gallery(name, "status", "--json")
        guard result.status == 0 else { return nil }
        return try JSONDecoder().decode(NodeStatus.self, from: Data(result.stdout.utf8))
    }

    /// The node's health as `status --json` reports it.
    func health(of name: String) throws -> NodeHealth {
        try #require(try status(of: name)?.health, "no status from \(name)")
    }

    /// The node's process ID, from `DIR/node.json`.
    func pid(of name: String) throws -> pid_t {
        let data = try Data(contentsOf: directory(name).appendingPathComponent("node.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return pid_t(try #require(object["pid"] as? Int))
    }

    /// The IDs of a gallery's items on a node, in order.
    func ids(on name: String, _ gallery: String) throws -> [String] {
        try column("id", on: name, gallery)
    }
}

import Foundation
import GalleryModel

/// One command of a random workload, named in terms of the model replica's item IDs, which the
/// workload maps to the node's IDs to build the command line.
///
/// Every command makes exactly one op on the node (an `add` of several sources is one insert of a
/// run), so a command either happened entirely or not at all.
enum WorkloadCommand: Sendable, CustomStringConvertible {
    /// `add SOURCE... --to GALLERY --at INDEX`; a source is a URL or a file path.
    case add(sources: [String], gallery: String, index: Int)
    /// `move ITEM --at INDEX [--to GALLERY]`; `byPlace` names the item `GALLERY:INDEX`.
    case move(item: OpID, gallery: String, index: Int, byPlace: Bool)
    /// `delete ITEM`.
    case delete(item: OpID, byPlace: Bool)
    /// `update ITEM --title TITLE`.
    case update(item: OpID, title: String, byPlace: Bool)
    /// `new-gallery NAME`.
    case newGallery(String)

    var description: String {
        switch self {
        case .add(let sources, let gallery, let index): "add \(sources.map { ($0 as NSString).lastPathComponent }) to \(gallery):\(index)"
        case .move(let item, let gallery, let index, _): "move \(item) to \(gallery):\(index)"
        case .delete(let item, _): "delete \(item)"
        case .update(let item, let title, _): "update \(item) title \(title)"
        case .newGallery(let name): "new-gallery \(name)"
        }
    }

    /// The title the node gives the item of a source: the last path component.
    static func title(of source: String) -> String {
        source.split(separator: "/").last.map(String.init) ?? source
    }

    /// The `gallery -C DIR` arguments after `-C DIR`, with items named through `name` (the node's
    /// ID of a model item) or by place in `replica` (the model, equal to the node's state).
    func arguments(replica: Replica, name: (OpID) -> String) -> [String] {
        func item(_ id: OpID, _ byPlace: Bool) -> String {
            guard byPlace, let location = replica.location(of: id) else { return name(id) }
            return "\(location.gallery):\(location.index)"
        }
        switch self {
        case .add(let sources, let gallery, let index):
            return ["add"] + sources + ["--to", gallery, "--at", String(index)]
        case .move(let id, let gallery, let index, let byPlace):
            // Within its gallery, `--to` is left out now and then: the node keeps the item's gallery.
            let sameGallery = replica.location(of: id)?.gallery == gallery
            return ["move", item(id, byPlace), "--at", String(index)] + (sameGallery && byPlace ? [] : ["--to", gallery])
        case .delete(let id, let byPlace):
            return ["delete", item(id, byPlace)]
        case .update(let id, let title, let byPlace):
            return ["update", item(id, byPlace), "--title", title]
        case .newGallery(let name):
            return ["new-gallery", name]
        }
    }

    /// Carries the command out on the model replica as the node does; returns the new items' IDs.
    @discardableResult
    func apply(to replica: inout Replica) throws -> [OpID] {
        switch self {
        case .add(let sources, let gallery, let index):
            let op = try replica.insert(sources.map { .titled(Self.title(of: $0)) }, into: gallery, at: index)
            return sources.indices.map { op.id.advanced(by: $0) }
        case .move(let id, let gallery, let index, _):
            try replica.move(id, to: gallery, at: index)
        case .delete(let id, _):
            // `gallery delete` moves to the Trash (its time is the node's; no listing shows it).
            try replica.trash(id, at: 0)
        case .update(let id, let title, _):
            try replica.update(id, .title, to: .text(title))
        case .newGallery(let name):
            try replica.createGallery(name)
        }
        return []
    }
}

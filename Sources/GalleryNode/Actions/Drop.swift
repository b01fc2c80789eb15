import Foundation
import GalleryModel
import GalleryWire

/// `drag`: the drop of items into a gallery, performed by this node, the app dropped into
/// (docs/design.md section 4).
///
/// When this node holds the bytes of every dragged item, the drop is local: `move` ops (`--move`)
/// or inserts of copies, at once. Otherwise it inserts one placeholder per item as one contiguous
/// run (several chained inserts when one op would exceed `FieldLimits`), and the transfer manager
/// fetches the missing bytes and commits each placeholder where it stands then; items whose bytes
/// are here are committed at once. With `--move` a source is deleted only once its copy is
/// committed.
///
/// Any adapter calls it with a typed `DragRequest`; nothing here knows the command line.
package enum Drop {
    /// Validates and performs a drop; nothing changes when it is refused. The transfers started
    /// are recorded in the journal once the placeholders are stored and sent.
    ///
    /// - Returns: One listing per dragged item, in drag order, and the transfers started.
    package static func perform(_ request: DragRequest, on node: SyncNode) throws -> [DropListing] {
        let destination = request.gallery
        guard !request.items.isEmpty else { throw ActionError.nothingNamed(command: "drag", what: "ITEM") }
        let move = request.move
        let timeout = request.timeout ?? Double(TransferManager.defaultTimeout.components.seconds)
        if let problem = request.boundsProblem { throw ActionError.outOfBounds(problem) }
        let blobs = node.configuration.blobs
        defer { node.transfers?.flushJournal() }
        return try node.perform { replica -> [DropListing] in
            // Everything is checked before the first op, so that a refused drop changes nothing.
            guard replica.hasGallery(destination) else { throw ActionError.unknownGallery(destination) }
            let sources = try resolveSources(request.items, destination: destination, in: replica)
            let items = sources.map { replica.item($0)! }
            let holdsBytes = { (item: Item) -> Bool in item.contentHash.map { blobs?.contains($0) ?? false } ?? true }
            if items.allSatisfy(holdsBytes) {
                return move
                    ? try moveLocally(sources, to: destination, at: request.index, in: &replica)
                    : try copyLocally(items, to: destination, at: request.index, in: &replica)
            }
            guard let transfers = node.transfers else { throw ActionError.noBlobs }
            let index = try request.index ?? replica.count(in: destination)
            let drafts = items.map { item in
                var fields = item.fields
                fields[.origin] = .id(item.id)
                return ItemDraft(isPlaceholder: true, fields: fields)
            }
            // As many chained ops as the bounds need, landing as one run (`Replica.insertRun`).
            let first = try replica.insertRun(drafts, into: destination, at: index)[0]
            var listings: [DropListing] = []
            var started: [Transfer] = []
            var preferred: [OpID: [ReplicaID]] = [:]
            let deadline = Date(timeIntervalSince1970: node.configuration.environment.wallClock()).addingTimeInterval(timeout)
            for (offset, item) in items.enumerated() {
                let placeholder = first.id.advanced(by: offset)
                if holdsBytes(item) {
                    try replica.commit(placeholder)
                    if move { try replica.delete(item.id) }
                    listings.append(listing(item.id, placeholder, .committed, transfer: nil, in: replica))
                    continue
                }
                started.append(Transfer(
                    placeholder: placeholder, source: item.id, hash: item.contentHash!, size: Int(item.byteSize ?? 0),
                    move: move, deadline: deadline))
                preferred[placeholder] = [item.id.replica] + (item.origin.map { [$0.replica] } ?? [])
                listings.append(listing(item.id, placeholder, .placeholder, transfer: placeholder, in: replica))
            }
            transfers.begin(started, preferred: preferred)
            return listings
        }
    }

    /// The dragged items, in order: IDs, `GALLERY:INDEX`, or a whole gallery by name (all its
    /// items; a gallery's name wins over `GALLERY:INDEX` when both read the same). Refuses unknown,
    /// deleted, still-loading and repeated items, and a gallery dropped into itself.
    private static func resolveSources(_ dragged: [DragSource], destination: String, in replica: Replica) throws -> [OpID] {
        var sources: [OpID] = []
        for source in dragged {
            let name = source.description
            let isGallery = switch source {
            case .gallery: true
            case .item(.position): replica.hasGallery(name)
            case .item(.id): false
            }
            if isGallery {
                guard replica.hasGallery(name) else { throw ActionError.unknownName(name) }
                guard name != destination else { throw ActionError.intoItself(name) }
                let items = try replica.items(in: name)
                guard !items.isEmpty else { throw ActionError.emptyGallery(name) }
                sources += items.map(\.id)
                continue
            }
            guard case .item(let reference) = source else { continue }
            let id = try reference.resolve(in: replica)
            guard let item = replica.item(id), !item.isDeleted else { throw ActionError.itemDeleted(id) }
            guard item.state == .ready else { throw ActionError.stillLoading(id) }
            sources.append(id)
        }
        var seen: Set<OpID> = []
        for id in sources where !seen.insert(id).inserted { throw ActionError.repeatedItem(id) }
        for id in sources where replica.item(id)?.state != .ready {
            throw ActionError.stillLoading(id)
        }
        return sources
    }

    /// A local `--move`: the items leave their places and stand as one run, the first at `index`
    /// of the gallery as counted without them (appended when nil).
    static func moveLocally(_ sources: [OpID], to gallery: String, at index: Int?, in replica: inout Replica) throws -> [DropListing] {
        try MoveItems.moveRun(sources, to: gallery, at: index, in: &replica)
        return sources.map { listing($0, $0, .moved, transfer: nil, in: replica) }
    }

    /// A local `--copy`: copies (same fields, `origin` set) inserted as one run at `index`, in as
    /// many chained ops as the bounds need.
    private static func copyLocally(_ items: [Item], to gallery: String, at index: Int?, in replica: inout Replica) throws -> [DropListing] {
        let drafts = items.map { item in
            var fields = item.fields
            fields[.origin] = .id(item.id)
            return ItemDraft(fields: fields)
        }
        let first = try replica.insertRun(drafts, into: gallery, at: index ?? replica.count(in: gallery))[0]
        return items.enumerated().map { offset, item in
            listing(item.id, first.id.advanced(by: offset), .copied, transfer: nil, in: replica)
        }
    }

    private static func listing(_ source: OpID, _ item: OpID, _ action: DropAction, transfer: OpID?, in replica: Replica) -> DropListing {
        let location = replica.location(of: item)
        return DropListing(
            source: source.description, item: item.description, gallery: location?.gallery ?? "", index: location?.index ?? -1,
            action: action, transfer: transfer?.description, outcome: nil)
    }
}

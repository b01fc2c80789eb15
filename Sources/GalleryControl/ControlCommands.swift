import Foundation
import GalleryWire
import GalleryIO
import GalleryNode
import GalleryModel

/// Carries out control requests on a node's replica, through the node so that the ops they make
/// are stored and sent like any other.
enum ControlCommands {
    static func execute(_ request: ControlRequest, on node: SyncNode) -> ControlResponse {
        do {
            switch request.command {
            case "galleries":
                let names = node.read { $0.galleries }
                return ControlResponse(id: request.id, ok: true, galleries: names.map { GalleryListing(gallery: $0, items: []) })
            case "new-gallery":
                let name = try required(request.gallery, "a gallery name")
                try RequestBounds.check(request)
                try node.perform { replica in
                    guard !replica.hasGallery(name) else { throw ControlFailure("gallery \"\(name)\" exists already") }
                    try replica.createGallery(name)
                }
                return ControlResponse(id: request.id, ok: true)
            case "list":
                let listings = try node.read { replica -> [GalleryListing] in
                    try Self.listings(replica, gallery: request.gallery, transfers: node.transfers)
                }
                return ControlResponse(id: request.id, ok: true, galleries: listings)
            case "add":
                // Default: the node's own gallery.
                let gallery = request.gallery ?? node.configuration.name
                let sources = (request.files ?? []).map(AddSource.file) + (request.urls ?? []).map(AddSource.url)
                guard !sources.isEmpty else { throw ControlFailure("add needs at least one FILE or URL") }
                try RequestBounds.check(request)
                // Every file is checked (a regular file, an image header, bounds) before any is
                // stored, and all are stored before the ops are made: a refused add changes nothing.
                let headers = try sources.map { try header(of: $0, request: request, blobs: node.configuration.blobs) }
                let drafts = try zip(sources, headers).map {
                    try draft(for: $0, header: $1, request: request, blobs: node.configuration.blobs)
                }
                let ops = try node.perform { replica in
                    try replica.insertRun(drafts, into: gallery, at: request.index ?? replica.count(in: gallery))
                }
                return ControlResponse(id: request.id, ok: true, ids: (0..<drafts.count).map { ops[0].id.advanced(by: $0).description })
            case "move":
                let item = try required(request.items?.first, "an item")
                try node.perform { replica in
                    let id = try resolve(item, in: replica)
                    let target = request.gallery ?? replica.location(of: id)?.gallery ?? ""
                    let count = try replica.count(in: target)
                    let inTarget = replica.location(of: id)?.gallery == target
                    try replica.move(id, to: target, at: request.index ?? (inTarget ? count - 1 : count))
                }
                return ControlResponse(id: request.id, ok: true)
            case "delete":
                let items = try required(request.items, "items")
                try node.perform { replica in
                    // Resolve and check every item first, so that GALLERY:INDEX means the same list
                    // for all and a refused delete deletes nothing.
                    let ids = try items.map { try resolve($0, in: replica) }
                    var seen: Set<OpID> = []
                    for (text, id) in zip(items, ids) {
                        guard seen.insert(id).inserted else { throw ControlFailure("item \(id) is named twice; nothing was deleted") }
                        guard replica.item(id)?.isDeleted == false else {
                            throw ControlFailure("item \(text) was deleted already; nothing was deleted")
                        }
                    }
                    for id in ids { try replica.delete(id) }
                }
                return ControlResponse(id: request.id, ok: true)
            case "update":
                let item = try required(request.items?.first, "an item")
                try RequestBounds.check(request)
                try node.perform { replica in
                    let id = try resolve(item, in: replica)
                    // Both fields are checked before the first op: a refused update changes nothing.
                    guard replica.item(id)?.isDeleted == false else { throw ModelError.itemDeleted(id) }
                    if let title = request.title, !ItemField.title.accepts(.text(title)) { throw ModelError.invalidFieldValue(.title) }
                    if let aspect = request.aspect, !ItemField.aspectRatio.accepts(.number(aspect)) {
                        throw ModelError.invalidFieldValue(.aspectRatio)
                    }
                    if let title = request.title { try replica.update(id, .title, to: .text(title)) }
                    if let aspect = request.aspect { try replica.update(id, .aspectRatio, to: .number(aspect)) }
                }
                return ControlResponse(id: request.id, ok: true)
            case "export":
                // The node only names the item's bytes; the command line reads them from the blob
                // store and writes the file with its user's rights. The node writes no path it is sent.
                let item = try required(request.items?.first, "an item")
                guard let blobs = node.configuration.blobs else { throw ControlFailure("this node keeps no blobs") }
                let found = try node.read { replica -> Item in
                    let id = try resolve(item, in: replica)
                    guard let found = replica.item(id), found.contentHash != nil else { throw ControlFailure("item \(id) has no bytes (a URL?)") }
                    return found
                }
                guard let hash = found.contentHash, blobs.contains(hash) else { throw ControlFailure("the bytes of \(item) are not on this node") }
                return ControlResponse(id: request.id, ok: true, item: listing(found, transfers: nil))
            case "peers":
                return ControlResponse(id: request.id, ok: true, peers: peerListings(node))
            case "status":
                let status = node.read { replica in
                    NodeStatus(
                        name: node.configuration.name, replica: replica.id.description,
                        address: nil, version: versionJSON(replica.version), ops: replica.opCount,
                        buffered: replica.bufferedCount, peers: [], transfers: [])
                }
                var full = status
                full.address = node.endpoint?.description
                full.peers = peerListings(node)
                full.transfers = node.transferListings
                full.health = node.health
                return ControlResponse(id: request.id, ok: true, status: full)
            case "drag":
                return ControlResponse(id: request.id, ok: true, drops: try DropCommand.execute(request, on: node))
            case "cancel":
                let texts = try required(request.items, "transfers")
                guard let transfers = node.transfers else { throw ControlFailure("this node keeps no blobs") }
                let ids = try texts.map { text -> OpID in
                    guard let id = OpID(text) else { throw ControlFailure("\"\(text)\" is not a transfer ID (COUNTER@REPLICA)") }
                    return id
                }
                try transfers.cancel(ids)
                return ControlResponse(id: request.id, ok: true)
            case "connect":
                let text = try required(request.gallery, "HOST:PORT")
                guard let endpoint = Endpoint(text) else { throw ControlFailure("\"\(text)\" is not HOST:PORT") }
                node.keepConnected(to: endpoint)
                return ControlResponse(id: request.id, ok: true)
            case "disconnect":
                let name = try required(request.gallery, "a peer's name")
                let replicas = Set(node.peers.filter { $0.name == name }.compactMap(\.replica))
                guard !replicas.isEmpty else { throw ControlFailure("no peer named \"\(name)\" is connected") }
                for replica in replicas { node.disconnect(replica) }
                return ControlResponse(id: request.id, ok: true)
            default:
                throw ControlFailure("unknown command \"\(request.command)\"")
            }
        } catch {
            return ControlResponse(id: request.id, ok: false, error: error.localizedDescription)
        }
    }

    /// The connected peers.
    private static func peerListings(_ node: SyncNode) -> [PeerListing] {
        node.peers.map {
            PeerListing(name: $0.name, replica: $0.replica?.description, address: $0.address,
                        direction: $0.direction, state: $0.state.rawValue,
                        syncedUpTo: $0.syncedUpTo.map(versionJSON))
        }
    }

    private static func versionJSON(_ version: VersionVector) -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: version.counters.map { ($0.key.description, $0.value) })
    }

    /// The listing of one gallery, or of all, as `list` answers it.
    static func listings(_ replica: Replica, gallery: String?, transfers: TransferManager?) throws -> [GalleryListing] {
        let names = try gallery.map { name -> [String] in
            guard replica.hasGallery(name) else { throw ModelError.unknownGallery(name) }
            return [name]
        } ?? replica.galleries
        return try names.map { name in
            GalleryListing(gallery: name, items: try replica.items(in: name).map { listing($0, transfers: transfers) })
        }
    }

    /// An item named by ID (`counter@replica`) or by place (`GALLERY:INDEX`), known here.
    static func resolve(_ text: String, in replica: Replica) throws -> OpID {
        if let id = OpID(text) {
            guard replica.item(id) != nil else { throw ModelError.unknownItem(id) }
            return id
        }
        guard let colon = text.lastIndex(of: ":"), let index = Int(text[text.index(after: colon)...]) else {
            throw ControlFailure("\"\(text)\" is neither an item ID (COUNTER@REPLICA) nor GALLERY:INDEX")
        }
        return try replica.item(at: index, in: String(text[..<colon])).id
    }

    /// What `add` adds: an image file stored as a blob, or a URL kept by reference.
    enum AddSource {
        case file(String)
        case url(String)
    }

    /// The image header of a file source, read without blocking from a regular file (a FIFO,
    /// device or directory is refused at once); nil for a URL.
    private static func header(of source: AddSource, request: ControlRequest, blobs: (any BlobSource)?) throws -> ImageHeader? {
        guard case .file(let path) = source else { return nil }
        guard blobs != nil else { throw ControlFailure("this node keeps no blobs") }
        let head = try RegularFile.prefix(of: path, maximumLength: 1 << 20)
        guard let header = ImageHeader(head) else { throw ControlFailure("\(path) is not a PNG, JPEG or GIF image") }
        if request.aspect == nil, let problem = FieldLimits.problem(with: .number(header.aspectRatio), for: .aspectRatio) {
            throw ControlFailure("\(path): \(problem)")
        }
        return header
    }

    /// The new item for one source: a file is stored, its title is its name, its media type and
    /// aspect ratio come from its header; a URL keeps `--aspect` (if any).
    private static func draft(for source: AddSource, header: ImageHeader?, request: ControlRequest, blobs: (any BlobSource)?) throws -> ItemDraft {
        var fields: [ItemField: FieldValue] = [:]
        switch source {
        case .url(let url):
            fields[.url] = .text(url)
            fields[.title] = .text(request.title ?? FieldLimits.truncatedTitle(lastComponent(of: url)))
        case .file(let path):
            guard let blobs, let header else { throw ControlFailure("this node keeps no blobs") }
            let (hash, size) = try blobs.put(contentsOf: URL(fileURLWithPath: path))
            fields[.title] = .text(request.title ?? FieldLimits.truncatedTitle(lastComponent(of: path)))
            fields[.contentHash] = .text(hash)
            fields[.byteSize] = .integer(Int64(size))
            fields[.mediaType] = .text(header.mediaType)
            fields[.aspectRatio] = .number(header.aspectRatio)
        }
        if let aspect = request.aspect { fields[.aspectRatio] = .number(aspect) }
        return ItemDraft(fields: fields)
    }

    private static func listing(_ item: Item, transfers: TransferManager?) -> ItemListing {
        let progress = item.state == .placeholder ? transfers?.progress(of: item.id) : nil
        return ItemListing(
            id: item.id.description, title: item.title, state: item.state.rawValue, hash: item.contentHash,
            bytes: item.byteSize, mediaType: item.mediaType, aspectRatio: item.aspectRatio, url: item.url,
            progress: progress.map { ItemListing.Progress(done: Int64($0.done), total: Int64($0.total)) })
    }

    private static func lastComponent(of url: String) -> String {
        url.split(separator: "/").last.map(String.init) ?? url
    }

    static func required<Value>(_ value: Value?, _ what: String) throws -> Value {
        guard let value else { throw ControlFailure("the request lacks \(what)") }
        return value
    }
}

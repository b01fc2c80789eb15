import Foundation
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
                let gallery = try required(request.gallery, "a gallery")
                let sources = (request.files ?? []).map(AddSource.file) + (request.urls ?? []).map(AddSource.url)
                guard !sources.isEmpty else { throw ControlFailure("add needs at least one FILE or URL") }
                // Files are stored (and their headers read) before any op is made.
                let drafts = try sources.map { try draft(for: $0, request: request, blobs: node.configuration.blobs) }
                let op = try node.perform { replica in
                    try replica.insert(drafts, into: gallery, at: request.index ?? replica.count(in: gallery))
                }
                return ControlResponse(id: request.id, ok: true, ids: (0..<drafts.count).map { op.id.advanced(by: $0).description })
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
                    // Resolve every item first, so that GALLERY:INDEX means the same list for all.
                    let ids = try items.map { try resolve($0, in: replica) }
                    for id in ids { try replica.delete(id) }
                }
                return ControlResponse(id: request.id, ok: true)
            case "update":
                let item = try required(request.items?.first, "an item")
                try node.perform { replica in
                    let id = try resolve(item, in: replica)
                    if let title = request.title { try replica.update(id, .title, to: .text(title)) }
                    if let aspect = request.aspect { try replica.update(id, .aspectRatio, to: .number(aspect)) }
                }
                return ControlResponse(id: request.id, ok: true)
            case "export":
                let item = try required(request.items?.first, "an item")
                let file = try required(request.files?.first, "a file")
                guard let blobs = node.configuration.blobs else { throw ControlFailure("this node keeps no blobs") }
                let hash = try node.read { replica -> String in
                    let id = try resolve(item, in: replica)
                    guard let hash = replica.item(id)?.contentHash else { throw ControlFailure("item \(id) has no bytes (a URL?)") }
                    return hash
                }
                guard let size = blobs.size(of: hash) else { throw ControlFailure("the bytes of \(item) are not on this node") }
                let bytes = try blobs.read(hash, offset: 0, length: size)
                guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else {
                    throw ControlFailure("cannot write \(file)")
                }
                return ControlResponse(id: request.id, ok: true)
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
                let replicas = Set(node.peers.filter { $0.name == name && name != ControlClientName.value }.compactMap(\.replica))
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

    /// The connected peers, without command-line sessions.
    private static func peerListings(_ node: SyncNode) -> [PeerListing] {
        node.peers.filter { $0.name != ControlClientName.value }.map {
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

    /// The new item for one source: a file is stored, its title is its name, its media type and
    /// aspect ratio come from its header; a URL keeps `--aspect` (if any).
    private static func draft(for source: AddSource, request: ControlRequest, blobs: BlobStore?) throws -> ItemDraft {
        var fields: [ItemField: FieldValue] = [:]
        switch source {
        case .url(let url):
            fields[.url] = .text(url)
            fields[.title] = .text(request.title ?? lastComponent(of: url))
        case .file(let path):
            guard let blobs else { throw ControlFailure("this node keeps no blobs") }
            guard let handle = FileHandle(forReadingAtPath: path) else { throw ControlFailure("cannot read \(path)") }
            let head = Array((try? handle.read(upToCount: 1 << 20)) ?? Data())
            try? handle.close()
            guard let header = ImageHeader(head) else { throw ControlFailure("\(path) is not a PNG, JPEG or GIF image") }
            let (hash, size) = try blobs.put(contentsOf: URL(fileURLWithPath: path))
            fields[.title] = .text(request.title ?? lastComponent(of: path))
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

/// A control command that cannot be carried out, with its one-line reason.
struct ControlFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ControlFailure: LocalizedError {
    var errorDescription: String? { description }
}

/// The node name the command line uses in its handshake; such sessions are not listed as peers.
public enum ControlClientName {
    public static let value = "gallery-cli"
}

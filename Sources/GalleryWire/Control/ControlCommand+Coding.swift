import Foundation
import GalleryModel

/// The JSON of a command: `{"command": NAME, "arguments": {...}}`.
///
/// | command | arguments |
/// |---|---|
/// | `galleries`, `peers`, `status` | none |
/// | `new-gallery` | `{"name": G}` |
/// | `list`, `watch` | `{"gallery"?: G}` |
/// | `add` | `AddRequest` |
/// | `move` | `{"item": ITEM, "index": I, "gallery"?: G}`, `"items": [ITEM]` in place of `item` for several |
/// | `delete` | `{"items": [ITEM]}` |
/// | `update` | `UpdateRequest` |
/// | `export` | `{"item": ITEM}` |
/// | `connect` | `{"host": H, "port": P}` |
/// | `disconnect` | `{"peer": NAME}` |
/// | `forget` | `{"peer": NAME or HOST:PORT}` |
/// | `invite` | `{"seconds": N}` |
/// | `members` | none |
/// | `revoke` | `{"node": NODE-ID or NAME}` |
/// | `drag` | `DragRequest` |
/// | `cancel` | `{"transfers": [COUNTER@REPLICA]}` |
/// | `list-trash`, `undo`, `redo` | none |
/// | `restore`, `empty-trash` | `{"items": [ITEM]}` (`empty-trash`: none for all of the Trash) |
/// | `rename-gallery` | `{"gallery": G, "name": NEW}` |
/// | `delete-gallery` | `{"gallery": G}` |
extension ControlCommand: Codable {
    /// The keys of a command's own object; `ControlRequest` adds `id` and `sent` beside them.
    enum CommandKey: String, CodingKey {
        case command, arguments
    }

    /// The keys inside `arguments` of the commands whose arguments are not a request type.
    enum ArgumentKey: String, CodingKey {
        case name, gallery, item, items, index, host, port, peer, transfers, seconds, node
    }

    package init(from decoder: any Decoder) throws {
        try self.init(from: decoder.container(keyedBy: CommandKey.self))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CommandKey.self)
        try encode(into: &container)
    }

    /// Decodes the command from the keys `command` and `arguments` of `container`.
    init<Key: CodingKey>(from container: KeyedDecodingContainer<Key>) throws {
        let commandKey = Key(stringValue: CommandKey.command.stringValue)!
        let argumentsKey = Key(stringValue: CommandKey.arguments.stringValue)!
        let text = try container.decode(String.self, forKey: commandKey)
        guard let name = ControlCommandName(rawValue: text) else {
            throw Swift.DecodingError.dataCorruptedError(forKey: commandKey, in: container, debugDescription: "unknown command \"\(text)\"")
        }
        func arguments() throws -> KeyedDecodingContainer<ArgumentKey> {
            try container.nestedContainer(keyedBy: ArgumentKey.self, forKey: argumentsKey)
        }
        func optionalGallery() throws -> String? {
            guard container.contains(argumentsKey) else { return nil }
            return try arguments().decodeIfPresent(String.self, forKey: .gallery)
        }
        switch name {
        case .galleries: self = .galleries
        case .listTrash: self = .listTrash
        case .undo: self = .undo
        case .redo: self = .redo
        case .restore: self = .restore(try arguments().decode([ItemReference].self, forKey: .items))
        case .emptyTrash:
            self = .emptyTrash(container.contains(argumentsKey) ? try arguments().decodeIfPresent([ItemReference].self, forKey: .items) ?? [] : [])
        case .renameGallery:
            let arguments = try arguments()
            self = .renameGallery(try arguments.decode(String.self, forKey: .gallery), to: try arguments.decode(String.self, forKey: .name))
        case .deleteGallery: self = .deleteGallery(try arguments().decode(String.self, forKey: .gallery))
        case .peers: self = .peers
        case .status: self = .status
        case .newGallery: self = .newGallery(try arguments().decode(String.self, forKey: .name))
        case .list: self = .list(gallery: try optionalGallery())
        case .watch: self = .watch(gallery: try optionalGallery())
        case .add: self = .add(try container.decode(AddRequest.self, forKey: argumentsKey))
        case .update: self = .update(try container.decode(UpdateRequest.self, forKey: argumentsKey))
        case .drag: self = .drag(try container.decode(DragRequest.self, forKey: argumentsKey))
        case .move:
            let arguments = try arguments()
            // One item comes as `item` (the form every node reads), several as `items`.
            let items = try arguments.decodeIfPresent([ItemReference].self, forKey: .items)
                ?? [try arguments.decode(ItemReference.self, forKey: .item)]
            self = .move(
                items: items,
                to: try arguments.decodeIfPresent(String.self, forKey: .gallery),
                at: try arguments.decode(Int.self, forKey: .index))
        case .delete: self = .delete(try arguments().decode([ItemReference].self, forKey: .items))
        case .export: self = .export(item: try arguments().decode(ItemReference.self, forKey: .item))
        case .connect:
            let arguments = try arguments()
            self = .connect(host: try arguments.decode(String.self, forKey: .host), port: try arguments.decode(UInt16.self, forKey: .port))
        case .disconnect: self = .disconnect(peer: try arguments().decode(String.self, forKey: .peer))
        case .forget: self = .forget(peer: try arguments().decode(String.self, forKey: .peer))
        case .invite: self = .invite(seconds: try arguments().decode(UInt64.self, forKey: .seconds))
        case .members: self = .members
        case .revoke: self = .revoke(node: try arguments().decode(String.self, forKey: .node))
        case .cancel:
            let arguments = try arguments()
            let texts = try arguments.decode([String].self, forKey: .transfers)
            self = .cancel(try texts.map { text in
                guard let id = OpID(text) else {
                    throw Swift.DecodingError.dataCorruptedError(
                        forKey: .transfers, in: arguments, debugDescription: "\"\(text)\" is not a transfer ID (COUNTER@REPLICA)")
                }
                return id
            })
        }
    }

    /// Encodes the command as the keys `command` and `arguments` of `container`.
    func encode<Key: CodingKey>(into container: inout KeyedEncodingContainer<Key>) throws {
        let argumentsKey = Key(stringValue: CommandKey.arguments.stringValue)!
        try container.encode(name, forKey: Key(stringValue: CommandKey.command.stringValue)!)
        func arguments() -> KeyedEncodingContainer<ArgumentKey> {
            container.nestedContainer(keyedBy: ArgumentKey.self, forKey: argumentsKey)
        }
        switch self {
        case .galleries, .peers, .status, .listTrash, .undo, .redo:
            break
        case .restore(let items), .emptyTrash(let items):
            var arguments = arguments()
            try arguments.encode(items, forKey: .items)
        case .renameGallery(let gallery, let name):
            var arguments = arguments()
            try arguments.encode(gallery, forKey: .gallery)
            try arguments.encode(name, forKey: .name)
        case .deleteGallery(let gallery):
            var arguments = arguments()
            try arguments.encode(gallery, forKey: .gallery)
        case .newGallery(let name):
            var arguments = arguments()
            try arguments.encode(name, forKey: .name)
        case .list(let gallery), .watch(let gallery):
            var arguments = arguments()
            try arguments.encodeIfPresent(gallery, forKey: .gallery)
        case .add(let request): try container.encode(request, forKey: argumentsKey)
        case .update(let request): try container.encode(request, forKey: argumentsKey)
        case .drag(let request): try container.encode(request, forKey: argumentsKey)
        case .move(let items, let gallery, let index):
            var arguments = arguments()
            try Self.encode(items, into: &arguments)
            try arguments.encodeIfPresent(gallery, forKey: .gallery)
            try arguments.encode(index, forKey: .index)
        case .delete(let items):
            var arguments = arguments()
            try arguments.encode(items, forKey: .items)
        case .export(let item):
            var arguments = arguments()
            try arguments.encode(item, forKey: .item)
        case .connect(let host, let port):
            var arguments = arguments()
            try arguments.encode(host, forKey: .host)
            try arguments.encode(port, forKey: .port)
        case .disconnect(let peer), .forget(let peer):
            var arguments = arguments()
            try arguments.encode(peer, forKey: .peer)
        case .cancel(let transfers):
            var arguments = arguments()
            try arguments.encode(transfers.map(\.description), forKey: .transfers)
        case .invite(let seconds):
            var arguments = arguments()
            try arguments.encode(seconds, forKey: .seconds)
        case .revoke(let node):
            var arguments = arguments()
            try arguments.encode(node, forKey: .node)
        case .members:
            break
        }
    }

    /// One item as `"item": ITEM` (the form every node reads), several as `"items": [ITEM]`.
    static func encode(_ items: [ItemReference], into arguments: inout KeyedEncodingContainer<ArgumentKey>) throws {
        if items.count == 1 {
            try arguments.encode(items[0], forKey: .item)
        } else {
            try arguments.encode(items, forKey: .items)
        }
    }
}

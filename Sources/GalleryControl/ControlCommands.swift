import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GalleryWire

/// Carries out typed control commands on a node: a thin dispatcher to the use cases of `Actions/`
/// and to the node's queries, through the node so that the ops they make are stored and sent like
/// any other. `watch` and `drag` with `wait` answer more than once: `SyncNode+Control` runs them.
package enum ControlCommands {
    /// Carries out `command` and returns its reply; throws the one-line reason of a refusal (the
    /// command changed nothing).
    package static func execute(_ command: ControlCommand, on node: SyncNode) throws -> ControlReply {
        if let problem = command.boundsProblem { throw ActionFailure(problem) }
        switch command {
        case .galleries:
            return .galleries(node.read { $0.galleries }.map { GalleryListing(gallery: $0, items: []) })
        case .newGallery(let name):
            try node.perform { replica in
                guard !replica.hasGallery(name) else { throw ActionFailure("gallery \"\(name)\" exists already") }
                try replica.createGallery(name)
            }
            return .done
        case .list(let gallery), .watch(let gallery):
            return .galleries(try node.read { try listings($0, gallery: gallery, transfers: node.transfers) })
        case .add(let request):
            return .added(try AddImage.perform(request, defaultGallery: node.configuration.name, on: node))
        case .move(let item, let gallery, let index):
            try move(item, to: gallery, at: index, on: node)
            return .done
        case .delete(let items):
            try delete(items, on: node)
            return .done
        case .update(let request):
            try update(request, on: node)
            return .done
        case .export(let item):
            return .item(try export(item, on: node))
        case .peers:
            return .peers(knownPeerListings(node))
        case .status:
            return .status(status(of: node))
        case .drag(let request):
            return .drops(try Drop.perform(request, on: node))
        case .cancel(let ids):
            guard let transfers = node.transfers else { throw ActionFailure("this node keeps no blobs") }
            try transfers.cancel(ids)
            return .done
        case .connect(let host, let port):
            // Checked as the command line checks HOST:PORT: a client may send any host.
            let text = Endpoint(host: host, port: port).description
            guard let endpoint = Endpoint(text) else { throw ActionFailure("\"\(text)\" is not HOST:PORT") }
            node.keepConnected(to: endpoint)
            return .done
        case .disconnect(let name):
            let replicas = Set(node.peers.filter { $0.name == name }.compactMap(\.replica))
            guard !replicas.isEmpty else { throw ActionFailure("no peer named \"\(name)\" is connected") }
            for replica in replicas { node.disconnect(replica) }
            return .done
        case .forget(let peer):
            guard node.forget(peer) else { throw ActionFailure("the address book holds no peer or address \"\(peer)\"") }
            return .done
        }
    }

    /// `move`: the item goes to `index` of `gallery` (its own when nil; default: the end).
    private static func move(_ item: ItemReference, to gallery: String?, at index: Int, on node: SyncNode) throws {
        try node.perform { replica in
            let id = try item.resolve(in: replica)
            let target = gallery ?? replica.location(of: id)?.gallery ?? ""
            try replica.move(id, to: target, at: index)
        }
    }

    /// `delete`: every item is resolved and checked first, so that GALLERY:INDEX means the same
    /// list for all and a refused delete deletes nothing.
    private static func delete(_ items: [ItemReference], on node: SyncNode) throws {
        guard !items.isEmpty else { throw ActionFailure("delete needs at least one ITEM") }
        try node.perform { replica in
            let ids = try items.map { try $0.resolve(in: replica) }
            var seen: Set<OpID> = []
            for (reference, id) in zip(items, ids) {
                guard seen.insert(id).inserted else { throw ActionFailure("item \(id) is named twice; nothing was deleted") }
                guard replica.item(id)?.isDeleted == false else {
                    throw ActionFailure("item \(reference) was deleted already; nothing was deleted")
                }
            }
            for id in ids { try replica.delete(id) }
        }
    }

    /// `update`: both fields are checked before the first op, so that a refused update changes
    /// nothing.
    private static func update(_ request: UpdateRequest, on node: SyncNode) throws {
        guard request.title != nil || request.aspect != nil else { throw ActionFailure("update needs a title or an aspect ratio") }
        try node.perform { replica in
            let id = try request.item.resolve(in: replica)
            guard replica.item(id)?.isDeleted == false else { throw ModelError.itemDeleted(id) }
            if let title = request.title, !ItemField.title.accepts(.text(title)) { throw ModelError.invalidFieldValue(.title) }
            if let aspect = request.aspect, !ItemField.aspectRatio.accepts(.number(aspect)) {
                throw ModelError.invalidFieldValue(.aspectRatio)
            }
            if let title = request.title { try replica.update(id, .title, to: .text(title)) }
            if let aspect = request.aspect { try replica.update(id, .aspectRatio, to: .number(aspect)) }
        }
    }

    /// `export`: the node only names the item's bytes; the command line reads them from the blob
    /// store and writes the file with its user's rights. The node writes no path it is sent. Bytes
    /// this node lacks are fetched from a connected peer that holds them first (verified before
    /// they are stored); with none, the refusal says why, as soon as that is known.
    private static func export(_ reference: ItemReference, on node: SyncNode) throws -> ItemListing {
        guard let blobs = node.configuration.blobs else { throw ActionFailure("this node keeps no blobs") }
        let found = try node.read { replica -> Item in
            let id = try reference.resolve(in: replica)
            guard let found = replica.item(id), found.contentHash != nil else { throw ActionFailure("item \(id) has no bytes (a URL?)") }
            return found
        }
        guard let hash = found.contentHash else { throw ActionFailure("the bytes of \(reference) are not on this node") }
        if !blobs.contains(hash) {
            do {
                try node.demandBytes(of: found)
            } catch {
                throw ActionFailure("the bytes of \(reference) are not on this node and cannot be fetched: \(error.localizedDescription)")
            }
        }
        return listing(found, transfers: nil)
    }
}

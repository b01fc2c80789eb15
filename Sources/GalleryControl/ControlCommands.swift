import Foundation
import GalleryIO
import GalleryModel
import GalleryNode
import GalleryWire

/// Carries out typed control commands on a node: a thin dispatcher to the use cases of `Actions/`
/// and to the node's queries, through the node so that the ops they make are stored and sent like
/// any other. `watch` and `drag` with `wait` answer more than once: `ControlDispatch` runs them.
package enum ControlCommands {
    /// Carries out `command` and returns its reply; throws the one-line reason of a refusal (the
    /// command changed nothing).
    package static func execute(_ command: ControlCommand, on node: SyncNode) throws -> ControlReply {
        try check(command)
        switch command {
        case .galleries:
            return .galleries(node.read { $0.galleries }.map { GalleryListing(gallery: $0, items: []) })
        case .newGallery(let name):
            try node.perform { replica in
                guard !replica.hasGallery(name) else { throw ActionError.galleryExists(name) }
                try replica.createGallery(name)
            }
            return .done
        case .list(let gallery), .watch(let gallery):
            return .galleries(try node.read { try listings($0, gallery: gallery, transfers: node.transfers) })
        case .add(let request):
            return .added(try AddImage.perform(request, defaultGallery: node.configuration.name, on: node))
        case .move(let items, let gallery, let index):
            try move(items, to: gallery, at: index, on: node)
            return .done
        case .delete(let items):
            return .message(try delete(items, on: node))
        case .listTrash, .restore, .emptyTrash, .renameGallery, .deleteGallery, .undo, .redo:
            return try trashOrUndo(command, on: node)
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
            guard let transfers = node.transfers else { throw ActionError.noBlobs }
            try transfers.cancel(ids)
            return .done
        case .connect(let host, let port):
            // Checked as the command line checks HOST:PORT: a client may send any host.
            let text = Endpoint(host: host, port: port).description
            guard let endpoint = Endpoint(text) else { throw ActionError.badAddress(text) }
            node.keepConnected(to: endpoint)
            return .done
        case .disconnect(let name):
            let replicas = Set(node.peers.filter { $0.name == name }.compactMap(\.replica))
            guard !replicas.isEmpty else { throw ActionError.peerNotConnected(name) }
            for replica in replicas { node.disconnect(replica) }
            return .done
        case .forget(let peer):
            guard node.forget(peer) else { throw ActionError.unknownPeer(peer) }
            return .done
        case .invite(let seconds):
            return .message(try node.invite(seconds: seconds).text)
        case .members:
            return .members(try node.members())
        case .revoke(let target):
            let member = try node.revoke(target)
            let generation = node.configuration.membership?.keys.generation ?? 0
            return .message("Revoked \(member.name) [\(member.nodeID)]; the space key is now of generation \(generation)")
        }
    }

    /// Refuses a command whose values break a rule of `FieldLimits` or of the command's bounds
    /// (`ControlCommand.boundsProblem`): the one check of every adapter, before anything is done.
    package static func check(_ command: ControlCommand) throws {
        if let problem = command.galleryNameProblem { throw ActionError.badGalleryName(problem) }
        if let problem = command.boundsProblem { throw ActionError.outOfBounds(problem) }
    }

    /// `export`: the node only names the item's bytes; the command line reads them from the blob
    /// store and writes the file with its user's rights. The node writes no path it is sent. Bytes
    /// this node lacks are fetched from a connected peer that holds them first (verified before
    /// they are stored); with none, the refusal says why, as soon as that is known.
    private static func export(_ reference: ItemReference, on node: SyncNode) throws -> ItemListing {
        guard let blobs = node.configuration.blobs else { throw ActionError.noBlobs }
        let found = try node.read { replica -> Item in
            let id = try reference.resolve(in: replica)
            guard let found = replica.item(id), found.contentHash != nil else { throw ActionError.noBytes(id) }
            return found
        }
        guard let hash = found.contentHash else { throw ActionError.noBytes(found.id) }
        if !blobs.contains(hash) {
            do {
                try node.demandBytes(of: found)
            } catch {
                throw ActionError.bytesMissing("\(reference)", reason: error.localizedDescription)
            }
        }
        return listing(found, transfers: nil)
    }
}

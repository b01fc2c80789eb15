import GalleryModel
import GalleryNode
import GalleryWire

/// The listings that answers carry: galleries, items, peers, the node's status.
extension ControlCommands {
    /// The listing of one gallery, or of all, as `list` answers it.
    package static func listings(_ replica: Replica, gallery: String?, transfers: TransferManager?) throws -> [GalleryListing] {
        let names = try gallery.map { name -> [String] in
            guard replica.hasGallery(name) else { throw ModelError.unknownGallery(name) }
            return [name]
        } ?? replica.galleries
        return try names.map { name in
            GalleryListing(gallery: name, items: try replica.items(in: name).map { listing($0, transfers: transfers) })
        }
    }

    /// One item, with the progress of its transfer when it is a placeholder being filled.
    package static func listing(_ item: Item, transfers: TransferManager?) -> ItemListing {
        let progress = item.state == .placeholder ? transfers?.progress(of: item.id) : nil
        return ItemListing(
            id: item.id.description, title: item.title, state: item.state.rawValue, hash: item.contentHash,
            bytes: item.byteSize, mediaType: item.mediaType, aspectRatio: item.aspectRatio, url: item.url,
            progress: progress.map { ItemListing.Progress(done: Int64($0.done), total: Int64($0.total)) })
    }

    /// The connected peers.
    package static func peerListings(_ node: SyncNode) -> [PeerListing] {
        node.peers.map {
            PeerListing(name: $0.name, replica: $0.replica?.description, nodeID: $0.nodeID?.description, address: $0.address,
                        direction: $0.direction, state: $0.state.rawValue,
                        syncedUpTo: $0.syncedUpTo.map(versionJSON), relay: $0.relay)
        }
    }

    /// The node's state: the replica's counts, read in one job of the node's inbox so that they
    /// agree with each other, then peers and transfers.
    package static func status(of node: SyncNode) -> NodeStatus {
        var status = node.read { replica in
            NodeStatus(
                name: node.configuration.name, replica: replica.id.description, address: nil,
                version: versionJSON(replica.version), ops: replica.opCount, buffered: replica.bufferedCount,
                peers: [], transfers: [], health: nil, nodeID: node.nodeID.description)
        }
        status.address = node.endpoint?.description
        if let place = node.relayPlace {
            status.treeRoot = place.root.description
            status.treeHops = place.hops
        }
        status.peers = peerListings(node)
        status.transfers = node.transferListings
        status.health = node.health
        status.storage = node.policies.storageStatus(of: node)
        status.keptInPlace = keptInPlace(node)
        return status
    }

    /// The files kept in place and those that cannot serve their bytes; nil when none is kept.
    private static func keptInPlace(_ node: SyncNode) -> KeptInPlaceListing? {
        guard let kept = node.configuration.blobs?.keptFiles(), kept.count > 0 else { return nil }
        return KeptInPlaceListing(files: kept.count, problems: kept.problems.map {
            KeptInPlaceListing.Problem(path: $0.file.path, hash: $0.file.hash, reason: $0.reason)
        })
    }

    private static func versionJSON(_ version: VersionVector) -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: version.counters.map { ($0.key.description, $0.value) })
    }
}

import GalleryNode
import GalleryWire

extension ControlCommands {
    /// `peers`: the connections, with what the address book knows of each peer, then the peers
    /// of the book that are not connected and the addresses no peer has answered at yet.
    static func knownPeerListings(_ node: SyncNode) -> [PeerListing] {
        let connected = peerListings(node)
        let known = node.knownPeers
        var listings = connected.map { listing -> PeerListing in
            guard let peer = known.first(where: { $0.key != nil && $0.name == listing.name }) else { return listing }
            var listing = listing
            listing.since = peer.connectedSince
            listing.lastSeen = peer.lastSeen
            listing.addresses = addressListings(peer.addresses)
            return listing
        }
        for peer in known where peer.key == nil || !connected.contains(where: { $0.name == peer.name }) {
            listings.append(PeerListing(
                name: peer.name, replica: peer.replica, address: peer.addresses.first?.address ?? "-", direction: "-",
                state: "disconnected", syncedUpTo: nil, lastSeen: peer.lastSeen, addresses: addressListings(peer.addresses),
                nextRetry: peer.nextRetry, lastError: peer.lastError))
        }
        return listings
    }

    private static func addressListings(_ addresses: [KnownAddress]) -> [PeerListing.Address] {
        addresses.map { PeerListing.Address(address: $0.address, source: $0.source.rawValue, lastSeen: $0.lastSeen) }
    }
}

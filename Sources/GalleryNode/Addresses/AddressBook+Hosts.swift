import GalleryIO

extension AddressBook {
    /// The hosts that mean "every interface": a peer listening there is reached at the address
    /// it is seen at.
    static let unspecifiedHosts: Set<String> = ["0.0.0.0", "::", "0:0:0:0:0:0:0:0"]

    /// The address to record for a listen address a peer announced: `HOST:PORT`, with an
    /// unspecified host (`0.0.0.0`, `::`) replaced by `seenHost`, the host the peer's connection
    /// comes from; nil when that leaves no valid address (for gossip, pass nil: an unspecified
    /// host told by a third party is dropped).
    package static func address(announcedHost host: String, port: UInt16, seenHost: String?) -> String? {
        guard let host = unspecifiedHosts.contains(host) ? seenHost : host, port != 0 else { return nil }
        return Endpoint(Endpoint(host: host, port: port).description)?.description
    }
}

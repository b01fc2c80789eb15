import GalleryIO

/// How a node reaches its peers when it does not use sockets: accept and dial producing
/// channels. The simulated network of `GalleryMeshSimulation` is one; production nodes use the
/// event loops or threads of `PeerIO` and no transport.
///
/// Callbacks may come on any thread (the simulation's one thread); the node hops to its inbox.
package protocol NodeTransport: AnyObject, Sendable {
    /// Starts accepting on `endpoint`; `accepted` gets each inbound link. Returns the bound endpoint.
    func listen(on endpoint: Endpoint, accepted: @escaping @Sendable (any TransportLink) -> Void) throws(TransportError) -> Endpoint
    /// Dials `endpoint`; `completion` gets the link, or why not, within `timeout` nanoseconds.
    func connect(to endpoint: Endpoint, timeout: UInt64, completion: @escaping @Sendable (Result<any TransportLink, TransportError>) -> Void)
    /// Stops accepting.
    func stopListening()
}

/// One connected link of a `NodeTransport`, before the node made its pipeline.
package protocol TransportLink: AnyObject, Sendable {
    /// The peer's address ("ip:port").
    var remote: String { get }
    /// Makes the link's channel with the connection's pipeline (`handlers`, head first) and the
    /// outbox it writes from; `activate` starts it.
    func makeChannel(source: any OutboundByteSource, handlers: [any ChannelHandler]) -> any TransportChannel
    /// Closes a link the node refused (no channel made).
    func refuse()
}

/// A channel of a `NodeTransport` link.
package protocol TransportChannel: Channel {
    /// Fires `channelActive` and starts reading and writing, on the channel thread.
    func activate()
}

import GalleryIO

/// How a node reaches its peers: accept and dial producing links, each made into a channel with
/// the connection's pipeline. Production nodes use TCP on event loops (`EventLoopTransport`); the
/// simulated network of `GalleryMeshSimulation` is the other, so the simulator drives the same node
/// code as production.
///
/// Callbacks may come on any thread (the simulation's one thread); the node hops to its inbox.
package protocol NodeTransport: AnyObject, Sendable {
    /// Starts accepting on `endpoint`; `accepted` gets each inbound link, `failed` each accept error
    /// and returns how many nanoseconds to pause accepting (0: go on). Returns the bound endpoint.
    func listen(
        on endpoint: Endpoint, accepted: @escaping @Sendable (any TransportLink) -> Void,
        failed: @escaping @Sendable (TransportError) -> UInt64
    ) throws(TransportError) -> Endpoint
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

import GalleryModel

/// What a node tells its subscribers (`NodeEvents`): the one stream that feeds `watch`, the
/// transfer manager, tests and later the web page.
package enum NodeEvent: Sendable {
    /// Ops applied here (made locally or received) and now durable, in the order applied. Nothing
    /// reaches a peer, a command or a subscriber before it is durable.
    case applied([Op])
    /// How far transfers in flight are.
    case transferProgress([TransferProgress])
    /// A peer connection changed state: authenticated, caught up, or closed (`nil` status).
    case peerChanged(connection: Int, status: PeerStatus?)
    /// The subscriber fell more than its bound behind: events were dropped. It must read the
    /// state it keeps anew from the node (`SyncNode.read`, `peers`).
    case resyncNeeded
}

/// How a node does the I/O of its peer connections.
package enum PeerIO: String, Sendable, CaseIterable {
    /// Two threads per connection (a reader and a writer) with blocking sockets, plus a thread
    /// per dialed peer, an accept thread and a liveness thread.
    case threaded
    /// A small fixed set of event loops (epoll on Linux, kqueue on Darwin), one per core: accept,
    /// dial, reads, writes, heartbeats and deadlines run on them, whatever the number of peers.
    case eventLoop = "event-loop"
}

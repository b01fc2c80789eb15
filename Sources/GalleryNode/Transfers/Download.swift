import Foundation
import GalleryModel

/// The fetch of one blob by hash, shared by every placeholder waiting for those bytes.
///
/// A download asks one peer at a time, from the offset its partial file already holds, and moves
/// on to another peer when one does not have the blob or goes away. Guarded by the manager's lock.
struct Download {
    /// What the download is doing.
    enum Phase {
        /// Waiting to ask a peer, not before this uptime (nanoseconds).
        case waiting(until: UInt64)
        /// Opening (or resuming) the partial file, off the manager's lock.
        case opening
        /// Asked the peer on a connection for the bytes from `done`, with a request ID unique on
        /// this node.
        case fetching(Connection, request: UInt64, peer: ReplicaID, name: String)
        /// All bytes arrived; being verified and moved into the store.
        case finishing
    }

    /// SHA-256 of the bytes, lowercase hex.
    let hash: String
    /// Their announced length.
    let size: Int
    /// The placeholders waiting for these bytes, in the order they were dropped.
    var placeholders: [OpID]
    /// The replicas to ask first: the nodes that added or copied the dragged items.
    var preferred: [ReplicaID]
    /// Where the bytes go; opened before the first fetch (resuming a partial file if there is one).
    var writer: (any BlobSink)?
    var phase: Phase = .waiting(until: 0)
    /// Peers that answered `not_found` since the last round of attempts began.
    var refusedBy: Set<ReplicaID> = []
    /// Bytes received, in order: stored, or queued on `stage` to be hashed and stored.
    var done = 0
    /// Bytes the stage has hashed and stored (`writer.receivedCount`, without asking it).
    var written = 0
    /// The lane of the node's workers that hashes and stores this download's chunks in order, off
    /// the connection's event loop (`TransferManager+Stage`); made with the writer.
    var stage: (any NodeExecutor)?
    /// Whether the next fetch waits for the stage to catch up (more than `backlogBytes` queued).
    var nextDeferred = false
    /// Where the bytes asked for by the open fetch end.
    var requestEnd = 0
    /// Bytes made durable in the partial file.
    var checkpointed = 0
    /// Uptime (nanoseconds) when the open fetch last made progress: sent, answered by a chunk, or
    /// its connection carried more than heartbeats (a busy link is not a stalled one).
    var lastActivity: UInt64 = 0
    /// Bytes received on the fetch's connection at `lastActivity`.
    var receivedAtActivity = 0
    /// Uptime of the last progress report (nanoseconds).
    var lastReport: UInt64 = 0
    /// Whether the download already started over after a resumed partial file failed to verify.
    var restartedFromZero = false
    /// For a relay (bytes a peer asked for and this node lacks, with no placeholder of its own
    /// waiting): when to give up.
    var relayDeadline: Date?
    /// Readers waiting for these bytes (`TransferManager.demand`), answered once when they are
    /// stored or cannot be had.
    var demanders: [TransferManager.DemandAnswer] = []
    /// Readers taking the bytes as they are stored (`DemandTap`), from the first byte.
    var taps: [any DemandTap] = []
    /// Uptime (nanoseconds) when the first reader waiting asked, or when bytes last arrived since:
    /// the readers are answered when nothing arrives for the manager's `demandPatience`.
    var demandedAt: UInt64?
    /// Peers whose bytes hashed to something else: never asked again for this blob.
    var mismatchedBy: Set<ReplicaID> = []
    /// Peers that sent bytes of the attempt in progress (blamed if the whole does not verify).
    var suppliers: Set<ReplicaID> = []
    /// Why the last attempt's bytes were discarded, when they did not match the hash.
    var mismatch: String?

    init(hash: String, size: Int, placeholders: [OpID], preferred: [ReplicaID]) {
        self.hash = hash
        self.size = size
        self.placeholders = placeholders
        self.preferred = preferred
    }

    /// Bytes asked for or received and not yet stored: what this download holds in memory (chunks
    /// queued on its stage) or has coming over the network.
    var unstoredBytes: Int {
        switch phase {
        case .fetching, .finishing: max(0, requestEnd - written)
        case .waiting, .opening: max(0, done - written)
        }
    }

    /// Notes progress of the open fetch on `connection` now.
    mutating func noteActivity(on connection: Connection, now: UInt64) {
        lastActivity = now
        receivedAtActivity = connection.byteCounts.received
    }

    /// Whether anyone still wants these bytes: a placeholder, a reader, or a relay before its
    /// deadline.
    func isWanted(at date: Date) -> Bool {
        !placeholders.isEmpty || !demanders.isEmpty || (relayDeadline.map { $0 > date } ?? false)
    }

    /// The name of the peer being asked, if any.
    var peerName: String? {
        if case .fetching(_, _, _, let name) = phase { return name }
        return nil
    }
}

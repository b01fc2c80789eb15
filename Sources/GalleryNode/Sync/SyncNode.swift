import Foundation
import GalleryIO
import GalleryModel
import GalleryWire

/// A replica served over TCP: it accepts and dials peers, authenticates them with the space's
/// secret, catches each up by version vector, then pushes every new op to every peer and relays
/// what it receives to the others.
///
/// Local changes go through `perform(_:)`; everything a peer sends goes through the replica's
/// `receive`. `@unchecked Sendable`: all mutable state is guarded by `condition`.
public final class SyncNode: @unchecked Sendable {
    /// The node's configuration.
    public let configuration: NodeConfiguration
    let settings: HandshakeSettings
    package let condition = NSCondition()
    /// Fills this node's placeholders, when it keeps blobs.
    package let transfers: TransferManager?
    /// Which inbound connections are kept before they authenticate, and shed first.
    let admission: AdmissionController
    /// The node's log for events that can come in floods: a few lines per second at most.
    let throttledLog: ThrottledLog

    // Guarded by `condition`.
    package var replica: Replica
    var connections: [Int: Connection] = [:]
    var sessions: [Int: Session] = [:]
    var nextConnectionID = 0
    var running = false
    var listener: Listener?
    /// The event loops, accept and liveness of a node using `PeerIO.eventLoop` (SyncNode+EventLoop).
    var eventLoops: NodeEventLoops?
    var boundEndpoint: Endpoint?
    package var observers: [Int: @Sendable ([Op], Replica) -> Void] = [:]
    /// Why ops cannot be stored right now (a full disk, a read-only directory), if so: local
    /// changes are refused, ops received meanwhile wait in `unstoredOps`, nothing is sent to peers
    /// until storing works again (`SyncNode+StorageFault`).
    package var storageFault: String?
    /// Ops applied here but not yet durable, in the order applied: never sent to any peer.
    var unstoredOps: [Op] = []
    /// Sessions whose `sync_request` came while ops could not be stored: answered once they can.
    var deferredCatchUps: [Int: VersionVector] = [:]
    /// Ops received under an ID this node holds with other content, most recent last.
    var divergentOps: [DivergentOp] = []
    /// Divergent ops seen since the node started (`divergentOps` keeps the last few).
    var divergentOpCount = 0
    /// Observers of transfer progress (`watch`), by the same IDs as `observers`.
    package var progressObservers: [Int: @Sendable ([TransferProgress], Replica) -> Void] = [:]
    package var nextObserverID = 0
    /// Commands from the command line (the control socket) being carried out, each on its own thread.
    package var runningCommands = 0
    /// The most commands carried out at once; more are refused as busy.
    package static let maximumRunningCommands = 64

    /// What the node knows of one authenticated connection.
    struct Session {
        /// Ops flow to the peer live once its catch-up is queued.
        var live = false
        /// The peer's version vector at its `caught_up`.
        var syncedUpTo: VersionVector?
    }

    /// Creates a node serving `replica`; call `start()` to listen and dial.
    public init(configuration: NodeConfiguration, replica: Replica) {
        self.configuration = configuration
        self.replica = replica
        self.settings = HandshakeSettings(
            secret: configuration.secret, replica: replica.id, name: configuration.name,
            maximumFrameSize: configuration.maximumFrameSize)
        self.admission = AdmissionController(limits: configuration.admission)
        self.throttledLog = ThrottledLog(configuration.log)
        self.transfers = configuration.blobs.map { TransferManager(blobs: $0, maximumFrameSize: configuration.maximumFrameSize) }
        transfers?.node = self
    }

    // MARK: Local use

    /// Runs a command on the replica; the ops it made are stored (when the node persists), then
    /// sent to every peer.
    ///
    /// Ops made before a later command of the closure throws are applied: they are stored and sent
    /// all the same, so that no applied op is left unsaved (or its ID reused).
    ///
    /// - Parameter command: Makes ops through the replica's commands.
    /// - Throws: The command's error; `SyncNodeError.storageUnavailable` (nothing done) while ops
    ///   cannot be stored; `SyncNodeError.notDurable` when this command's ops could not be stored
    ///   (they stay applied here, unsent, and are stored and sent once storing works again).
    @discardableResult
    public func perform<Result>(_ command: (inout Replica) throws -> Result) throws -> Result {
        try condition.withLock {
            if let storageFault { throw SyncNodeError.storageUnavailable(storageFault) }
            let before = replica.opCount
            let result: Result
            do {
                result = try command(&replica)
            } catch {
                publishLocal(since: before)
                throw error
            }
            guard publishLocal(since: before) else { throw SyncNodeError.notDurable(storageFault ?? "unknown") }
            return result
        }
    }

    /// Stores and sends the ops made since the replica had `before` ops; false when they could not
    /// be stored. Caller holds `condition`.
    @discardableResult
    private func publishLocal(since before: Int) -> Bool {
        guard replica.opCount > before else { return true }
        return broadcast(replica.lastOps(replica.opCount - before), except: nil, local: true)
    }

    /// Reads the replica.
    public func read<Result>(_ body: (Replica) throws -> Result) rethrows -> Result {
        try condition.withLock { try body(replica) }
    }

    /// Waits until `predicate` holds for the replica, or `timeout` passes; true when it holds.
    public func wait(timeout: Duration, until predicate: (Replica) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeout.nanoseconds) / 1e9)
        return condition.withLock {
            while !predicate(replica) {
                if !condition.wait(until: deadline) { return predicate(replica) }
            }
            return true
        }
    }

    /// Calls `observer` with every batch of ops applied (local or received), under the node's lock.
    @discardableResult
    public func observe(_ observer: @escaping @Sendable ([Op]) -> Void) -> Int {
        observe { ops, _ in observer(ops) }
    }

    /// Calls `observer` with every batch of ops applied and the replica right after them, under
    /// the node's lock (the observer must not call back into the node).
    @discardableResult
    public func observe(_ observer: @escaping @Sendable ([Op], Replica) -> Void) -> Int {
        condition.withLock {
            nextObserverID += 1
            observers[nextObserverID] = observer
            return nextObserverID
        }
    }

    /// Stops calling an observer.
    public func removeObserver(_ id: Int) {
        condition.withLock { observers[id] = nil }
    }

    /// The connected peers.
    public var peers: [PeerStatus] {
        condition.withLock { peerStatuses() }
    }

    /// Waits until `predicate` holds for the connected peers, or `timeout` passes; true when it holds.
    public func waitForPeers(timeout: Duration, until predicate: ([PeerStatus]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeout.nanoseconds) / 1e9)
        return condition.withLock {
            while !predicate(peerStatuses()) {
                if !condition.wait(until: deadline) { return predicate(peerStatuses()) }
            }
            return true
        }
    }

    /// The connected peers; the caller holds `condition`.
    private func peerStatuses() -> [PeerStatus] {
            connections.values.sorted { $0.id < $1.id }.map { connection in
                let peer = connection.peer
                let session = sessions[connection.id]
                let state: PeerStatus.State = peer == nil ? .handshaking : session?.syncedUpTo == nil ? .syncing : .live
                let bytes = connection.byteCounts
                return PeerStatus(
                    name: peer?.name, replica: peer?.replica, address: connection.remote,
                    direction: connection.role.rawValue, state: state, syncedUpTo: session?.syncedUpTo,
                    bytesReceived: bytes.received, bytesSent: bytes.sent)
            }
    }

    /// The address the node listens on (with the real port when it asked for port 0).
    public var endpoint: Endpoint? {
        condition.withLock { boundEndpoint }
    }

    /// Closes every connection to the peer with this replica ID (a test and operator hook).
    public func disconnect(_ peer: ReplicaID) {
        let targets = condition.withLock { connections.values.filter { $0.peer?.replica == peer } }
        for connection in targets { connection.close(nil, "disconnected by request") }
    }

    /// The transfers in flight on this node (`status`).
    public var transferListings: [TransferListing] {
        transfers?.listings() ?? []
    }

    // MARK: Internals

    /// The live peers that can be asked for bytes.
    func fetchPeers() -> [TransferManager.FetchPeer] {
        condition.withLock {
            sessions.compactMap { id, session -> TransferManager.FetchPeer? in
                guard session.live, let connection = connections[id], let peer = connection.peer else { return nil }
                return TransferManager.FetchPeer(
                    connection: connection, replica: peer.replica, name: peer.name, maximumFrameSize: peer.maximumFrameSize)
            }
        }
    }

    /// Tells the watchers how far transfers are.
    func publishProgress(_ progress: [TransferProgress]) {
        condition.withLock {
            for observer in progressObservers.values { observer(progress, replica) }
        }
    }

    /// Makes ops durable (when the node persists), sends them to every live peer but `source` in
    /// frames within each peer's limit, and tells observers and waiters. Ops that cannot be stored
    /// are kept unsent until they can (`SyncNode+StorageFault`); returns false for them. Caller
    /// holds `condition`.
    @discardableResult
    func broadcast(_ ops: [Op], except source: Int?, local: Bool) -> Bool {
        guard !ops.isEmpty else { return true }
        let durable = store(ops, local: local)
        if durable { send(ops, except: source) }
        transfers?.applied(ops)
        for observer in observers.values { observer(ops, replica) }
        condition.broadcast()
        return durable
    }

    /// Sends durable ops to every live peer but `source`: one frame for all the ops when every
    /// peer accepts it (the common case), else batches within each peer's limit. Caller holds
    /// `condition`.
    func send(_ ops: [Op], except source: Int?) {
        var whole: Frame?
        var framesByLimit: [Int: [Frame]] = [:]
        for (id, session) in sessions where session.live && id != source {
            guard let connection = connections[id] else { continue }
            let limit = min(configuration.catchUpBatchBytes, Int(connection.peer?.maximumFrameSize ?? FrameLimits.minimum))
            let frame = whole ?? Message.ops(ops).frame
            whole = frame
            if frame.payload.count <= limit {
                connection.send(frame, priority: .ops)
                continue
            }
            let frames = framesByLimit[limit]
                ?? OpCodec.encodeBatches(ops, maximumBytes: limit).map { Frame(.ops, payload: $0) }
            framesByLimit[limit] = frames
            for frame in frames { connection.send(frame, priority: .ops) }
        }
    }
}

import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import Synchronization
import GalleryWire

/// A replica served over TCP: it accepts and dials peers, authenticates them with the space's
/// secret, catches each up by version vector, then pushes every new op to every peer and relays
/// what it receives to the others.
///
/// **One serial inbox.** Every input becomes a job on `loop`, one `WorkThread` that alone owns the
/// replica and the session and fan-out state: ops, `sync_request` and `caught_up` from peers
/// (queued by each connection's event loop), local commands (`perform`,
/// which waits for its job), reports of the group-commit writer, connections to register (accepted
/// or dialed), the liveness pass (heartbeats, silence, gaps) queued by a timer. The I/O threads and
/// event loops only read, write and hand over: no input ever waits for another input's I/O, and
/// the state needs no lock at all. Nothing on the loop blocks:
/// storing goes to the group-commit writer (`GroupCommit`), sending only queues frames on a
/// connection's bounded outbound queue, subscribers get events on their own threads (`NodeEvents`),
/// and a catch-up is answered a batch per turn (`SyncNode+Sessions`, its catch-up part).
///
/// **Durability before anything leaves.** Ops applied on the loop go to the writer, which stores
/// and syncs every op waiting in one batch; only when it reports them durable are they sent to
/// peers, reported to subscribers and acknowledged to the `perform` that made them
/// (`SyncNode+Loop`, `Durability`).
///
/// **Confinement.** The loop's state is touched only on `loop` (checked on every access in
/// debug builds, `SyncNode+Loop`); the lifecycle state (`running`, the transport, command
/// slots, the change counter) is guarded by `condition`.
// unchecked Sendable: its loop state is touched on `loop` only, checked on every access in debug builds (`assertOnLoop`)
package final class SyncNode: @unchecked Sendable {
    /// The node's configuration.
    package let configuration: NodeConfiguration
    let settings: HandshakeSettings
    /// Guards the lifecycle state; broadcast whenever the loop changed the node's state.
    package let condition = NSCondition()
    /// The node's one serial inbox.
    let loop: any NodeExecutor
    /// Stores applied ops in batches, off the loop; nil for a node that does not persist.
    let writer: GroupCommit?
    /// The node's event stream: ops applied and durable, transfer progress, peer changes.
    package let events = NodeEvents()
    /// The node's fixed pool of workers: transfers, thumbnails, `holds` answers, the mirror's fsync.
    package let workers: any NodeWorkPool
    /// Fills this node's placeholders, when it keeps blobs.
    package let transfers: TransferManager?
    /// Makes the thumbnails of the originals held here (`Thumbnails/`); nil without blob stores.
    package let thumbnails: ThumbnailMaker?
    /// Fetches the thumbnails of the pictures whose originals this node lacks from its peers.
    package let thumbnailReplicator: ThumbnailReplicator?
    /// What the node keeps of its originals and who holds them (`Policies/`).
    package let policies: NodePolicies
    /// Membership: admission of sessions, joins, records, revocation (`MembershipExchange`); nil
    /// for a node that keeps no membership.
    let membershipExchange: MembershipExchange?
    /// What this node's people did that `gallery undo` and the page's Ctrl+Z can take back.
    package let undo = UndoJournal()
    /// Which inbound connections are kept before they authenticate, and shed first.
    let admission: AdmissionController
    /// The pause after accept failures, growing while descriptors stay exhausted.
    let acceptPause = Mutex<UInt64>(0)
    /// The node's log for events that can come in floods: a few lines per second at most.
    let throttledLog: ThrottledLog

    // Guarded by `condition`.
    var running = false
    /// How the node reaches its peers, once started.
    var transport: (any NodeTransport)?
    var boundEndpoint: Endpoint?
    /// Whether a liveness pass waits on the loop (another is not queued meanwhile).
    var livenessQueued = false
    /// Counts the loop's state changes, for `wait` and `waitForPeers`.
    var changes = 0

    // Owned by `loop`: reached only through the accessors of `SyncNode+Loop`, which check
    // the caller runs on the loop in debug builds. Separate stored properties, so that accesses
    // to two of them in one expression never overlap.
    var _replica: Replica
    /// The connections, the addresses they were dialed at, the duplicate rule (`PeerRegistry`).
    var _peerRegistry = PeerRegistry()
    /// The sync sessions, their catch-ups, the gap watch and the version exchange (`PeerSessions`).
    var _peerSessions: PeerSessions
    /// What the liveness pass carries from one run to the next.
    var _liveness: Liveness
    /// Why ops cannot be stored right now, if so, and the divergent ops refused (`StorageHealth`).
    var _storageHealth = StorageHealth()
    /// The keys of peers: pinned per dialed address, and per name (`PeerKeyBook`).
    var _peerKeys: PeerKeyBook = PeerKeyBook()
    /// What is durable, and the batches, commands and progress waiting for it (`Durability`).
    var _durability: Durability
    /// Where this node stands in the mesh's relay tree (`SyncNode+Relay`).
    var _relayTree: RelayTree
    /// The address book, the redials and gossip (`PeerDirectory`).
    var _addresses = PeerDirectory()
    /// What the relay received and sent (`SyncNode+Relay`).
    var _relayCountsOnLoop: RelayCounts = RelayCounts()
    /// Durable ops waiting for the next relay flush (`RelayHold`).
    var _relayHold: RelayHold

    /// Ops applied in one turn and not yet durable (`Durability.Batch`).
    typealias InFlight = Durability.Batch

    /// Creates a node serving `replica`; call `start()` to listen and dial.
    package init(configuration: NodeConfiguration, replica: Replica) {
        self.configuration = configuration
        self._replica = replica.signing(with: configuration)
        self._liveness = Liveness(previous: configuration.environment.clock.now)
        self._peerSessions = PeerSessions(gapTimeout: UInt64(max(configuration.gapTimeout.nanoseconds, 1_000_000)))
        self._durability = Durability(replica: replica)
        self._relayTree = RelayTree(
            me: replica.id, now: configuration.environment.clock.now,
            wallMilliseconds: UInt64(max(0, configuration.environment.wallClock() * 1_000)))
        self._relayTree.deposes = configuration.deposesWithholdingRoot
        self._relayTree.leaves = configuration.leavesLaggingParent
        self._relayHold = RelayHold(cap: UInt64(max(configuration.relayHold.nanoseconds, 0)))
        var settings = HandshakeSettings(
            secret: configuration.secret, staticKey: configuration.staticKey, replica: replica.id, name: configuration.name,
            maximumFrameSize: configuration.maximumFrameSize)
        settings.sealsRecords = configuration.sealsRecords
        settings.keyring = configuration.membership
        let random = configuration.environment.random
        settings.makeEphemeralKey = {
            var generator = EnvironmentRandom(source: random)
            return X25519.PrivateKey(using: &generator)
        }
        self.settings = settings
        self.admission = AdmissionController(limits: configuration.admission)
        self.throttledLog = ThrottledLog(configuration.log)
        self.loop = configuration.environment.makeInbox("node-loop \(configuration.name)")
        let report = UncheckedBox<SyncNode?>(nil)
        self.writer = configuration.store.map { store in
            GroupCommit(store: store, retryInterval: StorageHealth.retryInterval, run: configuration.environment.runDurability) { outcome in
                guard let node = report.value else { return }
                node.loop.async { node.handle(outcome) }
            }
        }
        let workers = configuration.environment.makeWorkPool("node work")
        self.workers = workers
        self.transfers = configuration.blobs.map {
            TransferManager(blobs: $0, maximumFrameSize: configuration.maximumFrameSize, workers: workers, environment: configuration.environment)
        }
        self.thumbnails = configuration.blobs.flatMap { blobs in
            configuration.derived.map { ThumbnailMaker(originals: blobs, derived: $0, workers: workers, log: configuration.log) }
        }
        self.thumbnailReplicator = thumbnails.map { ThumbnailReplicator(maker: $0, work: workers.makeLane("thumbnail replication")) }
        self.policies = NodePolicies(configuration: configuration)
        self.membershipExchange = configuration.membership.map { MembershipExchange(membership: $0, node: configuration.name, log: configuration.log) }
        report.value = self
        transfers?.node = self
        thumbnailReplicator?.node = self
        policies.attach(self)
        thumbnailReplicator?.watch(self)
    }

    // MARK: Local use

    /// Runs a command on the replica (on the node's loop), then waits until the ops it made are
    /// durable (when the node persists); they are sent to every peer once they are.
    ///
    /// Ops made before a later command of the closure throws are applied: they are stored and sent
    /// all the same, so that no applied op is left unsaved (or its ID reused).
    ///
    /// - Parameter command: Makes ops through the replica's commands. It runs on the node's loop:
    ///   it must not wait for I/O nor call back into the node.
    /// - Throws: The command's error; `SyncNodeError.storageUnavailable` (nothing done) while ops
    ///   cannot be stored; `SyncNodeError.notDurable` when this command's ops could not be stored
    ///   (they stay applied here, unsent, and are stored and sent once storing works again).
    @discardableResult
    package func perform<Result>(_ command: (inout Replica) throws -> Result) throws -> Result {
        // Called from a job of the loop (which must not wait for the loop's own reports): the ops
        // are stored and sent all the same, without waiting.
        let waits = !loop.isCurrent
        let (outcome, ticket) = try loop.sync { () throws -> (Swift.Result<Result, any Error>, DurabilityTicket?) in
            if let storageFault { throw SyncNodeError.storageUnavailable(storageFault) }
            return run(command, waits: waits)
        }
        if let ticket, let failure = ticket.wait() {
            if case .failure(let error) = outcome { throw error }
            throw SyncNodeError.notDurable(failure)
        }
        return try outcome.get()
    }

    /// `perform` without waiting: `completion` gets its outcome on `executor` once the ops are
    /// durable. What the node's workers run: the mirror's fsync that durability waits for runs on
    /// the same workers (a worker waiting for durability could wait for itself).
    package func perform<Result: Sendable>(
        _ command: @escaping @Sendable (inout Replica) throws -> Result, then executor: any NodeExecutor,
        _ completion: @escaping @Sendable (Swift.Result<Result, any Error>) -> Void
    ) {
        loop.async { [self] in
            if let storageFault { return executor.async { completion(.failure(SyncNodeError.storageUnavailable(storageFault))) } }
            let (outcome, ticket) = run(command, waits: true)
            guard let ticket else { return executor.async { completion(outcome) } }
            ticket.whenDone { failure in
                executor.async {
                    if let failure, case .success = outcome { completion(.failure(SyncNodeError.notDurable(failure))) } else { completion(outcome) }
                }
            }
        }
    }

    /// Runs `command` on the replica and hands the ops it made to durability (`applied`). On the loop.
    private func run<Result>(_ command: (inout Replica) throws -> Result, waits: Bool) -> (Swift.Result<Result, any Error>, DurabilityTicket?) {
        let before = replica.opCount
        let outcome = Swift.Result { try command(&replica) }
        let made = replica.opCount - before
        return (outcome, made > 0 ? applied(replica.lastOps(made), source: nil, waits: waits) : nil)
    }

    /// Reads the replica (on the node's loop; `body` must not call back into the node).
    package func read<Result, Failure: Error>(_ body: (Replica) throws(Failure) -> Result) throws(Failure) -> Result {
        let outcome = loop.sync { () -> Swift.Result<Result, Failure> in
            Swift.Result { () throws(Failure) -> Result in try body(replica) }
        }
        return try outcome.get()
    }

    /// Waits until `predicate` holds for the replica, or `timeout` passes; true when it holds.
    package func wait(timeout: Duration, until predicate: (Replica) -> Bool) -> Bool {
        waitForChange(timeout: timeout) { read(predicate) }
    }

    /// Calls `observer` with every batch of ops applied (local or received) once durable, on a
    /// thread of its own (`NodeEvents`); a `.resyncNeeded` is not passed on.
    @discardableResult
    package func observe(_ observer: @escaping @Sendable ([Op]) -> Void) -> Int {
        let subscription = events.subscribe { event in
            if case .applied(let ops) = event { observer(ops) }
        }
        return subscription.id
    }

    /// Stops calling an observer.
    package func removeObserver(_ id: Int) {
        events.unsubscribe(NodeEvents.Subscription(id: id))
    }

    /// The connected peers.
    package var peers: [PeerStatus] {
        loop.sync { peerStatuses() }
    }

    /// Waits until `predicate` holds for the connected peers, or `timeout` passes; true when it holds.
    package func waitForPeers(timeout: Duration, until predicate: ([PeerStatus]) -> Bool) -> Bool {
        waitForChange(timeout: timeout) { predicate(peers) }
    }

    /// Checks `holds` after every change of the node's state until it is true or `timeout` passes.
    private func waitForChange(timeout: Duration, _ holds: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeout.nanoseconds) / 1e9)
        while true {
            let seen = condition.withLock { changes }
            if holds() { return true }
            let changed = condition.withLock { () -> Bool in
                while changes == seen { if !condition.wait(until: deadline) { return changes != seen } }
                return true
            }
            if !changed { return holds() }
        }
    }

    /// Wakes `wait` and `waitForPeers`: the loop changed the node's state.
    func notifyChange() {
        condition.withLock {
            changes &+= 1
            condition.broadcast()
        }
    }

    /// The connected peers; a revoked node's connections, refused or being closed, are not listed
    /// (`MembershipExchange.lists`). On the loop.
    func peerStatuses() -> [PeerStatus] {
        connections.values.filter { membershipExchange?.lists($0) ?? true }.sorted { $0.id < $1.id }.map(status(of:))
    }

    /// What the node knows of one connection (`PeerStatus.init(_:session:relay:)`). On the loop.
    func status(of connection: Connection) -> PeerStatus {
        let session = sessions[connection.id]
        return PeerStatus(connection, session: session, relay: session.flatMap { relayRole(of: connection.id, $0.relay) })
    }

    /// This node's ID: a digest of its static public key.
    package var nodeID: NodeID { settings.nodeID }

    /// The address the node listens on (with the real port when it asked for port 0).
    package var endpoint: Endpoint? {
        condition.withLock { boundEndpoint }
    }

    /// Closes every connection to the peer with this replica ID (a test and operator hook).
    package func disconnect(_ peer: ReplicaID) {
        let targets = loop.sync { connections.values.filter { $0.peer?.replica == peer } }
        for connection in targets { connection.close(nil, "disconnected by request") }
    }

    /// The transfers in flight on this node (`status`).
    package var transferListings: [TransferListing] {
        transfers?.listings() ?? []
    }

    /// Group-commit batches stored since the node started (one `OpStore.store` each).
    package var storedBatches: Int { writer?.batches ?? 0 }

    /// What `status` shows of the node's storage and of ops it lacks or refused.
    package var health: NodeHealth {
        loop.sync {
            NodeHealth(
                storage: storageFault, unstoredOps: storageFault == nil ? 0 : replica.opCount - durability.count,
                missingOps: replica.missingRanges.map(\.description),
                divergentOps: storageHealth.divergentOps, divergentOpCount: storageHealth.divergentOpCount,
                identityConflicts: peerKeys.conflicts, repaired: configuration.repairedAtStart)
        }
    }

    // MARK: Internals

    /// The live peers that can be asked for bytes.
    func fetchPeers() -> [TransferManager.FetchPeer] {
        loop.sync {
            sessions.compactMap { id, session -> TransferManager.FetchPeer? in
                guard session.live, let connection = connections[id], let peer = connection.peer else { return nil }
                return TransferManager.FetchPeer(
                    connection: connection, replica: peer.replica, name: peer.name, maximumFrameSize: peer.maximumFrameSize)
            }
        }
    }

    /// Tells the subscribers how far transfers are, after the ops applied so far (a transfer's
    /// placeholder among them) are reported durable: progress is never seen before its placeholder.
    func publishProgress(_ progress: [TransferProgress]) {
        loop.async { [self] in
            if !durability.hold(progress, until: replica.opCount) { events.publish(.transferProgress(progress)) }
        }
    }

    // MARK: Membership (protocol.md, "Membership"; `MembershipExchange`)

    /// Whether `connection`, authenticated as `peer`, may start a sync session. On the connection's loop.
    func membershipAdmits(_ connection: Connection, _ peer: PeerIdentity) -> Bool {
        membershipExchange?.admits(connection, peer) ?? (peer.authority == .space)
    }

    /// A `membership` frame from `connection`; what follows is done on the loop. On the connection's loop.
    func received(_ message: MembershipMessage, from connection: Connection) {
        guard let followup = membershipExchange?.received(message, from: connection) else { return }
        loop.async { [self] in membershipFollows(followup) }
    }

    /// Does what a membership frame or command asks of the connections; revoked nodes are not dialed. On the loop.
    func membershipFollows(_ followup: MembershipExchange.Followup) {
        guard let membershipExchange else { return }
        let (revoked, changed) = membershipExchange.apply(followup, connections: Array(connections.values)) { sessions[$0] != nil }
        for node in revoked where forgetOnLoop(node.rawValue) {
            configuration.log("\(configuration.name): forgot revoked node \(node): no longer dialed")
        }
        if changed { notifyChange() }
    }

    /// Makes an invitation valid for `seconds` and returns its code (`gallery invite`).
    package func invite(seconds: UInt64) throws(MembershipFailure) -> InvitationCode {
        guard let membershipExchange else { throw .noMembership }
        return try membershipExchange.invite(seconds: seconds, announced: configuration.announce ?? endpoint.map { [$0] } ?? [])
    }

    /// The members (`gallery members`).
    package func members() throws(MembershipFailure) -> [MemberListing] {
        guard let membershipExchange else { throw .noMembership }
        return membershipExchange.membership.listing
    }

    /// Revokes the member `target`: its record and the new space key go to every member in session.
    package func revoke(_ target: String) throws(MembershipFailure) -> MemberListing {
        guard let membershipExchange else { throw .noMembership }
        return try loop.sync { () -> Result<MemberListing, MembershipFailure> in
            let revoked = membershipExchange.revoke(target) { MembershipExchange.cutoffs(ofSigningKey: $0, in: replica) }
            if case .success(let revoked) = revoked { membershipFollows(.revoked(revoked.record)) }
            return revoked.map { $0.listing }
        }.get()
    }

    /// `ops` without those a revoked member made after its revocation, which are logged. On the loop.
    func withoutRevokedAuthors(_ ops: [Op], from connection: Connection) -> [Op] {
        guard let membershipExchange else { return ops }
        let (kept, refused) = membershipExchange.withoutRevokedAuthors(ops, in: replica)
        if refused > 0 {
            throttledLog("revoked-ops", "\(configuration.name): refused \(refused) ops of a revoked member from \(connection.peer?.label ?? connection.remote)")
        }
        return kept
    }
}

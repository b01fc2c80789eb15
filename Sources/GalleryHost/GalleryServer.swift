import Foundation
import GalleryControl
import GalleryWire
import GalleryIO
import GalleryNode
import GalleryStorage
import GalleryWeb
import Synchronization
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif
import GalleryModel

/// A node serving a directory: its replica restored from its snapshot and op files, synced with
/// its peers, every applied op written to the op log before it is sent on.
///
/// Applied ops are synced to disk before `perform` returns and before any peer sees them: the
/// node's group commit stores every op waiting in one write and one fsync (`DirectoryOpStore`). Checkpoints (a snapshot of the state,
/// and the op log's ops moved to the compacted op file; see `NodeStorage`) run in the background
/// as `CheckpointPolicy` says, and at a clean stop.
package final class GalleryServer: Sendable {
    /// What `start` begins and `stop` ends: the control socket, the web adapter and the Trash's
    /// expiry, once started.
    private struct Adapters {
        var control: ControlServer?
        var web: WebServer?
        /// Deletes for good what stayed 30 days in the Trash, while the node runs.
        var trashExpiry: TrashExpiry?
    }

    /// The sync node.
    package let node: SyncNode
    /// The directory served.
    package let directory: URL
    /// What replaying the op log found.
    package let recovery: RecoveryReport
    /// How the replica was restored: from a snapshot or not, ops replayed, anything ignored or cut.
    package let startup: StartupReport
    /// The node's name.
    package let name: String
    private let storage: NodeStorage
    private let checkpoints: CheckpointPolicy
    private let checkpointer = Checkpointer()
    private let nodeLog: NodeLog

    /// The op log's fsyncs since the node started (for benchmarks and tests).
    package var opLogSyncCount: Int { storage.recordLog.syncCount }
    private let lockDescriptor: Int32
    /// Where the web adapter listens (`gallery serve --http`), or nil for none.
    private let http: Endpoint?
    private let adapters = Mutex(Adapters())

    /// The web adapter, when the node serves one (`--http`).
    package var web: WebServer? { adapters.withLock { $0.web } }

    /// Opens (creating if needed) a node directory, replays its op log, and starts the node.
    ///
    /// - Parameters:
    ///   - name: The node's name; defaults to the directory's name. The node creates the gallery of
    ///     that name on first start.
    ///   - listen: Where to listen; nil: where the node listened last, when that port is free,
    ///     else an ephemeral port (`KeptPort`).
    ///   - secretFile: A file with the space's secret, to join an existing space.
    ///   - checkpoints: When to take checkpoints.
    ///   - http: Where to serve the web page, or nil.
    ///   - announce: The addresses told to peers; nil: the bound one.
    ///   - mirrorsOpLog: Keeps the op log twice (`oplog.mirror`); false only for benchmarks that
    ///     measure what the copy costs.
    ///   - configure: Changes the node's configuration before the node is made (benchmarks, tests).
    package init(
        directory: URL, name: String? = nil, listen: Endpoint? = nil,
        peers: [Endpoint] = [], secretFile: URL? = nil, log nodeLog: NodeLog = .standardError,
        checkpoints: CheckpointPolicy = CheckpointPolicy(), http: Endpoint? = nil, announce: [Endpoint]? = nil,
        mirrorsOpLog: Bool = true, join: InvitationCode? = nil, configure: (inout NodeConfiguration) -> Void = { _ in }
    ) throws {
        self.http = http
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: Int(NodeDirectory.directoryMode)])
        let files = NodeDirectory(url: directory)
        let lockDescriptor = try files.lock()
        do {
            let staticKey = try files.nodeKey()
            let membershipFiles = MembershipFiles(directory: directory)
            // `--join CODE`: the secret comes from the inviter (GalleryServer+Join).
            let joined = try join.map { code in
                try Self.join(code, files: membershipFiles, staticKey: staticKey, name: name ?? directory.lastPathComponent, secretFile: secretFile)
            }
            let secret = try files.secret(copiedFrom: secretFile)
            let keys = try membershipFiles.loadKeys(secret: secret)
            let membership = Membership(
                keys: keys, records: membershipFiles.loadRecords(), invitations: membershipFiles.loadInvitations(),
                staticKey: staticKey, store: membershipFiles)
            let logExisted = FileManager.default.fileExists(atPath: files.opLog.path)
            // `DIR/replica` keeps the salt of the replica ID bound to the node's signing key
            // (protocol.md, "Signed ops"); a version 3 directory's replica ID is taken as that
            // salt, so an upgraded node goes on under a new, bound ID (its unsigned ops stay).
            let binding = ReplicaBinding(space: keys.space, nodeKey: staticKey)
            let salt = SaltBox(try files.replicaID(logExisted: logExisted).rawValue)
            let (storage, replica, report) = try NodeStorage.open(
                files, replicaID: binding.replicaID(salt: salt.value), mirrored: mirrorsOpLog,
                renewReplicaID: { () throws(StorageError) -> ReplicaID in
                    do {
                        salt.value = try files.renewReplicaID().rawValue
                        return binding.replicaID(salt: salt.value)
                    } catch {
                        throw .io(operation: "write (\(error.localizedDescription))", path: files.replicaFile.path, errno: EIO)
                    }
                })
            let name = name ?? directory.lastPathComponent
            self.name = name
            self.directory = directory
            self.recovery = report.log
            self.startup = report
            self.storage = storage
            self.checkpoints = checkpoints
            self.nodeLog = nodeLog
            self.lockDescriptor = lockDescriptor
            let checkpointer = self.checkpointer
            let book = ChecksummedFile<AddressBook>(file: files.addressBook)
            var configuration = NodeConfiguration(
                name: name, secret: secret, staticKey: staticKey, listen: listen ?? KeptPort.choose(from: book, log: nodeLog),
                peers: peers + (joined.map { [$0.inviter] } ?? []), log: nodeLog,
                blobs: try BlobStore(directory: directory),
                store: DirectoryOpStore(storage: storage, checkpoints: checkpoints, checkpointer: checkpointer))
            configuration.addressBook = book
            configuration.derived = try DerivedBlobStore(directory: directory)
            configuration.cacheRecords = ChecksummedFile<[CachedOriginal]>(
                file: directory.appendingPathComponent("blobs").appendingPathComponent("cache"))
            configuration.repairedAtStart = report.repairs
            configuration.replicaSalt = salt.value
            configuration.membership = membership
            configuration.spaceID = keys.space
            if let joined { configuration.pins[joined.inviter] = joined.inviterNode }
            membership.registerSelf(name: name, now: Timestamp.now)
            configuration.announce = announce
            configuration.environment.releaseFreedMemory = MallocArenas.releaseFreed
            // No sealed heartbeat a second on an idle link (protocol.md, section 10).
            configuration.quiet = .standard
            configure(&configuration)
            let node = SyncNode(configuration: configuration, replica: replica)
            self.node = node
            // The mirror's fsyncs on the node's workers, not a thread of their own.
            storage.recordLog.runMirrorSyncs { [workers = node.workers] job in workers.async(job) }
        } catch {
            close(lockDescriptor)
            throw error
        }
        checkpointer.start { [self] in
            do {
                try checkpoint()
            } catch {
                nodeLog("\(self.name): checkpoint failed: \(error.localizedDescription)")
            }
        }
        if storage.opsSinceCheckpoint >= checkpoints.every { checkpointer.request() }
    }

    /// Starts listening and dialing, opens the control socket (`DIR/control.sock`, replacing a
    /// stale one), creates the node's own gallery on first start, and writes `node.json` (address,
    /// name, replica ID, pid).
    @discardableResult
    package func start() throws -> Endpoint? {
        let endpoint = try node.start()
        // After the node: its sessions run on the node's event loops.
        let control: ControlServer
        do {
            control = try ControlServer(node: node, path: NodeDirectory(url: directory).controlSocket.path)
        } catch {
            node.stop()
            throw error
        }
        adapters.withLock { $0.control = control }
        // By identity: the node's own gallery may have been renamed (or deleted) since.
        if !node.read({ $0.knowsGallery(identity: name) }) {
            try node.perform { try $0.createGallery(name) }
        }
        let expiry = TrashExpiry(node: node, name: name) { [nodeLog] in nodeLog($0) }
        adapters.withLock { $0.trashExpiry = expiry }
        if let http {
            let web = try WebServer(
                node: node, directory: directory, listen: http,
                temporaryDirectory: directory.appendingPathComponent("blobs").appendingPathComponent("tmp"))
            adapters.withLock { $0.web = web }
        }
        let info: [String: Any] = [
            "address": endpoint?.description ?? NSNull(), "name": name,
            "replica": node.read { $0.id.description }, "pid": Int(getpid()),
            "web": web?.origin ?? NSNull(),
        ]
        let data = try JSONSerialization.data(withJSONObject: info, options: [.sortedKeys])
        try NodeDirectory(url: directory).writeAtomically(Array(data) + [0x0A], to: NodeDirectory(url: directory).info)
        return endpoint
    }

    /// Takes a checkpoint now, on the calling thread (after one that is running, if any): writes
    /// the snapshot and moves the op log's ops to the compacted op file. Does nothing when the
    /// node stopped serving after a storage failure, or nothing changed since the last one.
    package func checkpoint() throws {
        let storage = storage
        try storage.checkpoint {
            // On the group-commit writer, once every op of the copy is durable and before any
            // later op is appended: the record log holds exactly the copy's ops up to its end.
            node.withDurableReplica { storage.capture($0) }
        }
    }

    /// Stops the node, takes a checkpoint if `CheckpointPolicy.atStopAfter` ops came since the
    /// last, syncs and closes the op files, and releases the directory.
    package func stop() {
        // No command is taken once the node begins to stop.
        adapters.withLock { $0.control }?.stop()
        web?.stop()
        adapters.withLock { $0.trashExpiry }?.stop()
        node.stop()
        let unstored = node.health.unstoredOps
        if unstored > 0 {
            nodeLog("\(name): stopping with \(unstored) ops applied but never stored (storage failed); they are lost here")
        }
        checkpointer.stop()
        if storage.opsSinceCheckpoint >= checkpoints.atStopAfter {
            do {
                try checkpoint()
            } catch {
                nodeLog("\(name): checkpoint at stop failed: \(error.localizedDescription)")
            }
        }
        try? storage.close()
        try? FileManager.default.removeItem(at: NodeDirectory(url: directory).info)
        close(lockDescriptor)
    }
}

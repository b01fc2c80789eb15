import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif
import GalleryModel
import GalleryWire

/// A node serving a directory: its replica restored from the durable op log, synced with its
/// peers, every applied op written to the log before it is sent on.
///
/// Local ops are synced to disk before `perform` returns and before any peer sees them; ops from
/// peers are written and synced once per received frame.
public final class GalleryServer: @unchecked Sendable {
    // `@unchecked Sendable`: every stored property is immutable after `start`; the op log file is
    // thread-safe itself.

    /// The sync node.
    public let node: SyncNode
    /// The directory served.
    public let directory: URL
    /// What replaying the op log found.
    public let recovery: RecoveryReport
    /// The node's name.
    public let name: String
    private let log: OpLogFile

    /// The op log's fsyncs since the node started (for benchmarks).
    public var opLogSyncCount: Int { log.syncCount }
    private let lockDescriptor: Int32

    /// Opens (creating if needed) a node directory, replays its op log, and starts the node.
    ///
    /// - Parameters:
    ///   - name: The node's name; defaults to the directory's name. The node creates the gallery of
    ///     that name on first start.
    ///   - secretFile: A file with the space's secret, to join an existing space.
    public init(
        directory: URL, name: String? = nil, listen: Endpoint = Endpoint(host: "127.0.0.1", port: 0),
        peers: [Endpoint] = [], secretFile: URL? = nil, log nodeLog: NodeLog = .standardError
    ) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let files = NodeDirectory(url: directory)
        let lockDescriptor = try files.lock()
        do {
            let secret = try files.secret(copiedFrom: secretFile)
            let logExisted = FileManager.default.fileExists(atPath: files.opLog.path)
            let (opLog, recovered, report) = try OpLogFile.open(at: files.opLog)
            var replica = Replica(id: try files.replicaID(logExisted: logExisted))
            for op in recovered {
                if case .rejected(let error) = replica.receive(op) {
                    throw ServerError.io("op log holds an op that cannot be applied: \(error.localizedDescription)")
                }
            }
            let name = name ?? directory.lastPathComponent
            self.name = name
            self.directory = directory
            self.recovery = report
            self.log = opLog
            self.lockDescriptor = lockDescriptor
            self.node = SyncNode(
                configuration: NodeConfiguration(
                    name: name, secret: secret, listen: listen, peers: peers, log: nodeLog,
                    persist: { ops, _ in
                        // One write and one fsync per local command or received frame.
                        try opLog.append(ops)
                        try opLog.sync()
                    },
                    blobs: try BlobStore(directory: directory)),
                replica: replica)
        } catch {
            close(lockDescriptor)
            throw error
        }
    }

    /// Starts listening and dialing, creates the node's own gallery on first start, and writes
    /// `node.json` (address, name, replica ID, pid) for the command line.
    @discardableResult
    public func start() throws -> Endpoint? {
        let endpoint = try node.start()
        if !node.read({ $0.hasGallery(name) }) {
            try node.perform { try $0.createGallery(name) }
        }
        let info: [String: Any] = [
            "address": endpoint?.description ?? NSNull(), "name": name,
            "replica": node.read { $0.id.description }, "pid": Int(getpid()),
        ]
        let data = try JSONSerialization.data(withJSONObject: info, options: [.sortedKeys])
        try NodeDirectory(url: directory).writeAtomically(Array(data) + [0x0A], to: NodeDirectory(url: directory).info)
        return endpoint
    }

    /// Stops the node, syncs and closes the log, and releases the directory.
    public func stop() {
        node.stop()
        try? log.close()
        try? FileManager.default.removeItem(at: NodeDirectory(url: directory).info)
        close(lockDescriptor)
    }
}

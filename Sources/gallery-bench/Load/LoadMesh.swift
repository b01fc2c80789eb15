import Foundation
import GalleryHost
import GalleryIO
import GalleryModel
import GalleryNode

/// Nodes in this process on 127.0.0.1, every node connected to every other (node `i` dials nodes
/// `0..<i`): `GalleryServer`s on temporary directories (durable op log, one fsync per local op and
/// per received frame, as `gallery serve`) or plain in-memory `SyncNode`s.
final class LoadMesh: Sendable {
    /// Where the nodes keep their state.
    enum Store: String, Sendable {
        case disk
        case memory
    }

    let nodes: [SyncNode]
    let names: [String]
    private let servers: [GalleryServer]
    private let root: URL?
    /// The gallery every node edits besides its own.
    static let sharedGallery = "shared"

    /// - Parameter flood: In-memory nodes push every op to every peer (no relay trees): the
    ///   baseline of `--flood`.
    /// - Parameter plainOps: The nodes send ops in `ops` frames only (`NodeConfiguration.compactOps` off).
    /// - Parameter mirrorsOpLog: Disk nodes keep their op log twice (`oplog.mirror`), as `gallery serve` does.
    /// - Parameter unsigned: The disk nodes neither sign nor check ops (the baseline of signed ops).
    init(count: Int, store: Store, flood: Bool = false, relayHold: Int? = nil, plainOps: Bool = false, mirrorsOpLog: Bool = true,
         unsigned: Bool = false) throws {
        let configure = { (configuration: inout NodeConfiguration) in
            if let relayHold { configuration.relayHold = .milliseconds(relayHold) }
            if plainOps { configuration.compactOps = false }
            if unsigned { configuration.replicaSalt = nil }
        }
        let names = (0..<count).map { "n\($0)" }
        self.names = names
        var nodes: [SyncNode] = []
        var servers: [GalleryServer] = []
        var addresses: [Endpoint] = []
        let root: URL? = store == .disk
            ? FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-load-\(UUID().uuidString)") : nil
        self.root = root
        let secret = Array("load benchmark secret".utf8)
        do {
            for (index, name) in names.enumerated() {
                switch store {
                case .disk:
                    let directory = root!.appendingPathComponent(name)
                    let secretFile = index == 0 ? nil : root!.appendingPathComponent(names[0]).appendingPathComponent("secret")
                    let server = try GalleryServer(
                        directory: directory, name: name, peers: addresses, secretFile: secretFile, log: .silent,
                        mirrorsOpLog: mirrorsOpLog, configure: configure)
                    servers.append(server)
                    guard let address = try server.start() else { throw BenchFailure.failed("load: node \(name) has no address") }
                    addresses.append(address)
                    nodes.append(server.node)
                case .memory:
                    var configuration = NodeConfiguration(name: name, secret: secret, peers: addresses, log: .silent)
                    configuration.relayTrees = !flood
                    configure(&configuration)
                    let node = SyncNode(configuration: configuration, replica: Replica(id: ReplicaID(deriving: "load-\(name)")))
                    guard let address = try node.start() else { throw BenchFailure.failed("load: node \(name) has no address") }
                    try node.perform { try $0.createGallery(name) }
                    addresses.append(address)
                    nodes.append(node)
                }
            }
        } catch {
            for server in servers { server.stop() }
            if store == .memory { for node in nodes { node.stop() } }
            if let root { try? FileManager.default.removeItem(at: root) }
            throw error
        }
        self.nodes = nodes
        self.servers = servers
        let galleries = names + [Self.sharedGallery]
        try nodes[0].perform { try $0.createGallery(Self.sharedGallery) }
        for node in nodes {
            let meshed = node.waitForPeers(timeout: .seconds(30)) { peers in
                peers.filter { $0.state == .live && $0.name != nil }.count >= count - 1
            }
            guard meshed, node.wait(timeout: .seconds(30), until: { replica in galleries.allSatisfy(replica.hasGallery) }) else {
                stop()
                throw BenchFailure.failed("load: the \(count) nodes did not form a mesh in 30 s")
            }
        }
    }

    /// The op log fsyncs of each node so far (0 for in-memory nodes).
    var fsyncCounts: [Int] {
        servers.isEmpty ? nodes.map { _ in 0 } : servers.map(\.opLogSyncCount)
    }

    /// The bytes of each node's op log file (nil for in-memory nodes).
    var opLogFileBytes: [Int]? {
        guard let root else { return nil }
        return names.map { name in
            let path = root.appendingPathComponent(name).appendingPathComponent("oplog").path
            return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        }
    }

    /// Stops every node and deletes their directories.
    func stop() {
        if servers.isEmpty {
            for node in nodes { node.stop() }
        } else {
            for server in servers { server.stop() }
        }
        if let root { try? FileManager.default.removeItem(at: root) }
    }
}

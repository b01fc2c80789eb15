import Foundation
import GalleryModel
import GalleryNode
import Synchronization
import Testing

/// Sync nodes on 127.0.0.1 with ephemeral ports and test timings, stopped when the cluster ends.
final class TestCluster: Sendable {
    static let secret = Array("test secret of the space".utf8)

    let nodes: [SyncNode]
    /// Every line the nodes logged.
    let lines = LogLines()

    /// Starts one listening node per name; `peers[i]` lists the indices node i dials; `configure`
    /// adjusts node i's configuration last.
    init(_ names: [String], peers: [Int: [Int]] = [:], secrets: [Int: [UInt8]] = [:],
         catchUpBatchBytes: Int = 1 << 20, peerTimeout: Duration = .seconds(3),
         configure: (Int, inout NodeConfiguration) -> Void = { _, _ in }) throws {
        var nodes: [SyncNode] = []
        let lines = self.lines
        let log = NodeLog { line in lines.append(line) }
        for (index, name) in names.enumerated() {
            let configuration = NodeConfiguration(
                name: name, secret: secrets[index] ?? Self.secret,
                heartbeatInterval: .milliseconds(100), peerTimeout: peerTimeout,
                reconnect: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)),
                catchUpBatchBytes: catchUpBatchBytes, log: log)
            var configured = configuration
            configure(index, &configured)
            // A node that signs its ops makes them under the replica ID bound to its key.
            let id = configured.replicaSalt.map {
                ReplicaBinding(secret: configured.secret, nodeKey: configured.staticKey).replicaID(salt: $0)
            } ?? ReplicaID(deriving: name)
            let node = SyncNode(configuration: configured, replica: Replica(id: id))
            try node.start()
            nodes.append(node)
        }
        self.nodes = nodes
        for (index, targets) in peers {
            for target in targets { nodes[index].keepConnected(to: nodes[target].endpoint!) }
        }
    }

    deinit {
        stop()
    }

    func stop() {
        for node in nodes { node.stop() }
    }

    /// Waits until every node has every op any node has; false on timeout.
    func waitForConvergence(timeout: Duration = .seconds(20)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let target = nodes.reduce(VersionVector()) { $0.merged(with: $1.read { $0.version }) }
            let remaining = deadline - ContinuousClock.now
            if nodes.allSatisfy({ node in node.wait(timeout: remaining) { $0.version.includes(target) } }) {
                // Nothing new appeared meanwhile: every node holds the union.
                let again = nodes.reduce(VersionVector()) { $0.merged(with: $1.read { $0.version }) }
                if again == target { return true }
            } else {
                return false
            }
        }
        return false
    }

    /// Waits for convergence; on timeout records an issue with the nodes' logs and peers.
    @discardableResult
    func expectConvergence(timeout: Duration = .seconds(20), _ comment: String = "",
                           sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let converged = waitForConvergence(timeout: timeout)
        if !converged {
            let versions = nodes.map { node in node.read { $0.version.description } }
            let peers = nodes.map { "\($0.configuration.name): \($0.peers.map { "\($0.name ?? $0.address) \($0.state)" })" }
            Issue.record(Comment(rawValue: """
                no convergence in \(timeout) \(comment)
                versions: \(versions)
                peers: \(peers)
                log:
                \(lines.all.suffix(40).joined(separator: "\n"))
                """), sourceLocation: sourceLocation)
        }
        return converged
    }

    /// What a node shows: every gallery with its items' IDs, titles and states.
    func view(_ index: Int) -> [String: [String]] {
        Self.views(nodes[index])
    }

    /// What `node` shows: every gallery with its items' IDs, titles and states.
    static func views(_ node: SyncNode) -> [String: [String]] {
        node.read { replica in
            Dictionary(uniqueKeysWithValues: replica.galleries.map { gallery in
                (gallery, ((try? replica.items(in: gallery)) ?? []).map { "\($0.id) \($0.title ?? "") \($0.state)" })
            })
        }
    }

    /// The log lines containing `text`.
    func logged(_ text: String) -> [String] {
        lines.all.filter { $0.contains(text) }
    }
}

/// Log lines collected from several threads.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var all: [String] { lines.withLock { $0 } }
}

import Foundation
import GalleryTestSupport
import GalleryWire

/// What a running node shows, read through the command line: every gallery (`list --json`) and
/// its status (`status --json`).
struct NodeSnapshot {
    /// Every gallery with its items, sorted by name.
    var galleries: [GalleryListing]
    /// Version vector, op count, peers.
    var status: NodeStatus

    /// The `list --json` answer with no gallery named.
    private struct AllGalleries: Decodable {
        var galleries: [GalleryListing]
    }

    /// Reads the node serving `directory`.
    static func read(_ directory: URL) throws -> NodeSnapshot {
        let list = try GalleryProcess.run(["-C", directory.path, "list", "--json"], timeout: 20)
        guard list.status == 0 else { throw SnapshotFailure.command("list", list.status, list.stderr) }
        let status = try GalleryProcess.run(["-C", directory.path, "status", "--json"], timeout: 20)
        guard status.status == 0 else { throw SnapshotFailure.command("status", status.status, status.stderr) }
        let decoder = JSONDecoder()
        return NodeSnapshot(
            galleries: try decoder.decode(AllGalleries.self, from: Data(list.stdout.utf8)).galleries,
            status: try decoder.decode(NodeStatus.self, from: Data(status.stdout.utf8)))
    }

    /// Polls both nodes until they hold the same ops and show the same galleries, or `timeout`
    /// passes; returns the last snapshots of both.
    static func waitForConvergence(_ first: URL, _ second: URL, timeout: TimeInterval = 30) throws
        -> (NodeSnapshot, NodeSnapshot, converged: Bool)
    {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let a = try read(first), b = try read(second)
            let converged = a.status.version == b.status.version && a.status.buffered == 0 && b.status.buffered == 0
                && a.galleries == b.galleries
            if converged || Date() >= deadline { return (a, b, converged) }
            usleep(50_000)
        }
    }
}

/// A snapshot that could not be read.
enum SnapshotFailure: LocalizedError {
    /// A command failed: its name, exit status and standard error.
    case command(String, Int32, String)

    var errorDescription: String? {
        switch self {
        case .command(let name, let status, let stderr): "\(name) exited with \(status): \(stderr)"
        }
    }
}

import Foundation
import GalleryTestSupport

/// The nodes of a chaos run in one temporary folder: `n0` creates the space's secret, the others
/// join it and dial the node before them (a chain) or every node before them (a mesh).
final class ChaosCluster: Sendable {
    /// The run's folder: one directory and one log per node, the images, `commands.log`.
    let folder: URL
    let nodes: [ChaosNode]
    let mesh: Bool
    /// Where images are written before `add`, and command output while a command runs.
    let scratch: URL
    private let commandLog: FileHandle
    private let logLock = NSLock()
    private let started = Date()

    /// Starts `count` nodes, waiting for each to listen.
    init(count: Int, mesh: Bool, seed: UInt64) throws(ChaosError) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-chaos-\(seed)-\(UUID().uuidString.prefix(8))")
        scratch = folder.appendingPathComponent("scratch")
        self.mesh = mesh
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw .setup("cannot create \(scratch.path): \(error.localizedDescription)")
        }
        let logURL = folder.appendingPathComponent("commands.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: logURL.path) else { throw .setup("cannot write \(logURL.path)") }
        commandLog = handle
        var nodes: [ChaosNode] = []
        for index in 0..<count {
            let earlier = mesh ? Array(nodes) : Array(nodes.suffix(1))
            let node = ChaosNode(
                name: "n\(index)", folder: folder, peers: earlier.compactMap(\.address),
                secretFile: nodes.first.map { $0.directory.appendingPathComponent("secret") })
            do {
                try node.start()
            } catch {
                for started in nodes { started.stop() }
                throw error
            }
            nodes.append(node)
        }
        self.nodes = nodes
    }

    /// The node of that name.
    func node(_ name: String) -> ChaosNode? {
        nodes.first { $0.name == name }
    }

    /// The names of the nodes a node is connected to by configuration (it dials them or they dial it).
    func neighbours(of node: ChaosNode) -> [String] {
        guard let index = nodes.firstIndex(where: { $0 === node }) else { return [] }
        return nodes.indices.filter { other in
            other != index && (mesh || abs(other - index) == 1)
        }.map { nodes[$0].name }
    }

    /// Runs `gallery -C DIR(node) ARGUMENTS`, and logs it with its outcome.
    func gallery(_ node: ChaosNode, _ arguments: [String], timeout: Double = 30) -> GalleryProcess.Result {
        let begun = Date()
        let result = (try? GalleryProcess.run(["-C", node.directory.path] + arguments, timeout: timeout, scratch: scratch))
            ?? GalleryProcess.Result(status: -1, stdout: "", stderr: "cannot run \(GalleryProcess.executable.path) with its output in \(scratch.path)")
        let output = (result.stdout + (result.ok ? "" : result.stderr)).split(separator: "\n").joined(separator: " | ")
        let times = String(format: "%.3f +%.3f", begun.timeIntervalSince(started), Date().timeIntervalSince(begun))
        log("\(times) \(node.name) \(arguments.joined(separator: " ")) -> \(result.status) \(output.prefix(600))")
        return result
    }

    /// Appends a line to `commands.log`, with the seconds since the start.
    func log(_ line: String) {
        logLock.withLock { try? commandLog.write(contentsOf: Data((line + "\n").utf8)) }
    }

    /// Seconds since the cluster started.
    var elapsed: Double { Date().timeIntervalSince(started) }

    /// Stops every node.
    func stop() {
        for node in nodes { node.stop() }
        logLock.withLock { try? commandLog.close() }
    }
}
